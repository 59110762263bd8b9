import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { StepLogger } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices, measureEventLoop } from '@gov/core/testing'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { AnalysisPool } from '../src/analysis-pool.js'
import { type AnalyzerOptions, analyzeTextNow } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { PII_WORKER_FAILED, PiiStep } from '../src/index.js'
import { withDefaults } from '../src/settings.js'
import { densePiiText, makeStep } from './helpers.js'

const CRASHING_WORKER = new URL('./fixtures/crashing-worker.js', import.meta.url)
const settings = withDefaults({ action: 'allow' })
const userSays = (text: string) => makeExchange([{ source: 'user', text }])

let options: AnalyzerOptions
before(async () => {
  options = analyzerOptions(plainOptions(settings), await sharedGazetteer())
})

/** Findings as comparable rows. */
async function findingsOf(step: PiiStep, text: string): Promise<[string, number, number, number][]> {
  const ctx = makeRequestContext(userSays(text))
  await step.onRequest(ctx)
  return ctx.findings.map((f) => [f.type, f.span?.start ?? -1, f.span?.end ?? -1, f.score])
}

/** What the analysis finds in-thread, as {@link findingsOf} rows, and how long it blocked. */
function analyseHere(text: string): { rows: [string, number, number, number][]; ms: number } {
  const started = performance.now()
  const detections = analyzeTextNow(text, options)
  const ms = performance.now() - started
  return { rows: detections.map((d) => [d.type, d.start, d.end, d.score]), ms }
}

/** A logger that keeps the codes of its warnings. */
function recordingLogger(): StepLogger & { warnings: unknown[] } {
  const warnings: unknown[] = []
  const ignore = () => {}
  return {
    warnings,
    debug: ignore,
    info: ignore,
    error: ignore,
    warn(obj) {
      warnings.push(typeof obj === 'string' ? obj : obj.code)
    },
  }
}

describe('long texts off the event loop', () => {
  const steps: PiiStep[] = []
  after(async () => {
    for (const step of steps) await step.close()
  })

  it('analyses a 200 KB text in a worker thread while the event loop keeps running', async (t) => {
    const { step } = await makeStep({ action: 'allow' })
    steps.push(step)
    assert.equal(await step.startWorkers(), true)
    const text = densePiiText(200_000)
    const here = analyseHere(text)
    assert.ok(here.rows.length > 1000, 'the text is dense in personal data')

    let rows: Awaited<ReturnType<typeof findingsOf>> | undefined
    const { gap: largestGap } = await measureEventLoop(async () => {
      rows = await findingsOf(step, text)
    })

    t.diagnostic(
      `in-thread ${here.ms.toFixed(1)} ms; offloaded: largest event-loop gap ${largestGap.toFixed(1)} ms`,
    )
    assert.equal(step.offloaded, 1)
    assert.deepEqual(rows, here.rows)
    assert.ok(
      largestGap < here.ms / 2,
      `largest event-loop gap ${largestGap.toFixed(1)} ms, in-thread analysis ${here.ms.toFixed(1)} ms`,
    )
  })

  it('keeps short texts in-thread, and every text with offload_above_bytes 0', async () => {
    const { step } = await makeStep({ action: 'allow' })
    steps.push(step)
    await step.startWorkers()
    const short = densePiiText(8_000)
    assert.deepEqual(await findingsOf(step, short), analyseHere(short).rows)
    assert.equal(step.offloaded, 0)

    const { step: inThread } = await makeStep({ action: 'allow', offload_above_bytes: 0 })
    steps.push(inThread)
    assert.equal(await inThread.startWorkers(), false)
    const long = densePiiText(40_000)
    assert.deepEqual(await findingsOf(inThread, long), analyseHere(long).rows)
    assert.equal(inThread.offloaded, 0)
  })

  it('counts the limit in UTF-8 bytes', async () => {
    const { step } = await makeStep({ action: 'allow', offload_above_bytes: 30_000 })
    steps.push(step)
    await step.startWorkers()
    // ~19k UTF-16 units, but ~34 KB of UTF-8: over the limit.
    const text = `Grüße an Jürgen Müller. ${'Привет мир! '.repeat(1600)}`
    assert.ok(text.length < 30_000 && Buffer.byteLength(text) > 30_000)
    assert.deepEqual(await findingsOf(step, text), analyseHere(text).rows)
    assert.equal(step.offloaded, 1)
  })

  it('falls back to in-thread analysis when the worker dies, and logs the code', async () => {
    const logger = recordingLogger()
    const step = new PiiStep(settings, makeServices('detect_pii', { logger }), { workerUrl: CRASHING_WORKER })
    steps.push(step)
    await step.ready()
    assert.equal(await step.startWorkers(), true)
    const text = densePiiText(40_000)
    assert.deepEqual(await findingsOf(step, text), analyseHere(text).rows)
    assert.equal(step.offloaded, 0)
    assert.equal(step.analyses, 1)
    assert.deepEqual(logger.warnings, [PII_WORKER_FAILED])
  })

  it('rejects a job of a dying worker with GOV_ERR_PII_WORKER_FAILED', async () => {
    const pool = new AnalysisPool(plainOptions(settings), 1, recordingLogger(), CRASHING_WORKER)
    assert.equal(pool.analyze('text'), undefined, 'no thread is ready before start()')
    assert.equal(await pool.start(), true)
    const job = pool.analyze('Randy Shaw')
    assert.ok(job)
    await assert.rejects(job, { code: PII_WORKER_FAILED })
    assert.equal(pool.threads, 0)
    await pool.close()
  })

  it('still answers a text in flight when close() stops the threads', async () => {
    const { step } = await makeStep({ action: 'allow' })
    assert.equal(await step.startWorkers(), true)
    const text = densePiiText(60_000)
    const pending = findingsOf(step, text)
    await step.close()
    assert.deepEqual(await pending, analyseHere(text).rows)
    assert.equal(step.offloaded, 0)
    assert.equal(await step.startWorkers(), false, 'a closed step starts no threads')
  })

  it('never keeps the process alive: a process that does not close the step exits', async () => {
    const script = fileURLToPath(new URL('./fixtures/idle-pool.js', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 30_000 })
    assert.equal(stdout.trim(), 'offloaded 1 findings 1')
  })
})
