/**
 * Worker thread of the analysis pool: runs the same pure analysis as the
 * step's own thread, on texts long enough to block the event loop, and
 * answers with the analysis (score, signals, span offsets into the text).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { ModelData } from './analysis-pool.js'
import type { AnalysisReply, AnalysisRequest } from './analysis-protocol.js'
import { InjectionDetector } from './detector.js'
import { LinearModel } from './linear-model.js'

const port = parentPort
if (!port) throw new Error('analysis-worker.js runs as a worker thread only')

// The calling thread's model arrives as plain data, so this thread reads no file and loads
// nothing of @gov/core (whose dependencies take ~0.3 s to load); requests posted meanwhile wait.
const { bits, channels, combine } = workerData as ModelData
const detector = new InjectionDetector(new LinearModel(bits, channels, combine))

port.on('message', (request: AnalysisRequest) => {
  let reply: AnalysisReply
  try {
    const analysis = detector.analyze(request.text, request.channel, {
      decodePayloads: request.decodePayloads,
    })
    reply = { id: request.id, analysis }
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
