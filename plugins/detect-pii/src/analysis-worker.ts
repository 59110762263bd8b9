/**
 * Worker thread of the analysis pool: runs the same pure analysis as the
 * step's own thread on texts too long to analyse there, and answers with the
 * detections (offsets into the text it was sent).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { analyzerOptions, type PlainAnalyzerOptions } from './analysis-options.js'
import type { AnalysisRequest, WorkerMessage } from './analysis-protocol.js'
import { type AnalyzerOptions, analyzeTextNow } from './analyze-text.js'
import { sharedGazetteer } from './gazetteer-loader.js'

const plain = workerData as PlainAnalyzerOptions
const port = parentPort
if (!port) throw new Error('analysis-worker.js runs as a worker thread only')

function send(message: WorkerMessage): void {
  port?.postMessage(message)
}

function serve(options: AnalyzerOptions): void {
  port?.on('message', (request: AnalysisRequest) => {
    try {
      send({ kind: 'result', id: request.id, detections: analyzeTextNow(request.text, options) })
    } catch (err) {
      send({ kind: 'error', id: request.id, error: err instanceof Error ? err.message : String(err) })
    }
  })
  send({ kind: 'ready' })
}

// The gazetteer loads before the worker says it is ready; a failure to load ends the thread.
serve(analyzerOptions(plain, plain.entities ? await sharedGazetteer() : undefined))
