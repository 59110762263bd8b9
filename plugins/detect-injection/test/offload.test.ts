import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type { Finding, Verdict } from '@gov/core'
import { GovError } from '@gov/core'
import type { FakeMessage } from '@gov/core/testing'
import { makeExchange, makeRequestContext, makeServices, measureEventLoop } from '@gov/core/testing'
import { AnalysisPool, POOL_CLOSED, WORKER_FAILED } from '../src/analysis-pool.js'
import type { Analysis, AnalyzeOptions } from '../src/detector.js'
import { InjectionDetector } from '../src/detector.js'
import step, { OFFLOAD_ABOVE_BYTES } from '../src/index.js'
import { createInstance, type InjectionInstance, isLongerThan } from '../src/instance.js'
import type { Channel } from '../src/match-rules.js'
import { loadDetector, loadModel } from '../src/model-file.js'
import type { InjectionSettings } from '../src/settings.js'
import { TOOL_ATTACKS } from './fixtures.js'

const SETTINGS: InjectionSettings = {
  threshold: 0.7,
  tool_result_threshold: 0.7,
  scan_system: false,
  scan_assistant: true,
  scan_tool_results: true,
  decode_payloads: true,
  allow_list: [],
  allow_patterns: [],
  cache_size: 0,
  offload_above_bytes: OFFLOAD_ABOVE_BYTES,
  offload_workers: 1,
}

class CountingDetector extends InjectionDetector {
  calls = 0
  override analyze(text: string, channel: Channel, options?: AnalyzeOptions): Analysis {
    this.calls++
    return super.analyze(text, channel, options)
  }
}

const PARAGRAPH =
  'The committee reviewed the budget for the coming year and agreed to increase funding for parks, libraries and public transport. '

/** About `size` characters of an ordinary document with an instruction planted near the end. */
function documentOf(size: number): string {
  const filler = PARAGRAPH.repeat(Math.ceil(size / PARAGRAPH.length)).slice(0, size)
  return `${filler}\n${TOOL_ATTACKS.planted_task}\n${PARAGRAPH}`
}

function toolResult(text: string): FakeMessage[] {
  return [
    { source: 'user', text: 'Summarise the document I fetched.' },
    { source: 'assistant', toolCalls: [{ id: 'call_1', name: 'fetch', arguments: '{}' }] },
    { source: 'tool', toolResults: [{ toolCallId: 'call_1', text }] },
  ]
}

async function run(
  instance: InjectionInstance,
  messages: FakeMessage[],
): Promise<{ verdict: Verdict; findings: readonly Finding[] }> {
  const ctx = makeRequestContext(makeExchange(messages), { step: 'detect_injection' })
  const verdict = await instance.onRequest?.(ctx)
  assert.ok(verdict)
  return { verdict, findings: ctx.findings }
}

const instances: InjectionInstance[] = []
function instanceOf(settings: Partial<InjectionSettings> = {}, detector = loadDetector()) {
  const instance = createInstance({ ...SETTINGS, ...settings }, makeServices('detect_injection'), detector)
  instances.push(instance)
  return instance
}

after(async () => {
  for (const instance of instances) await instance.close()
})

describe('detect_injection: long texts off the event loop', () => {
  it('declares offload_above_bytes (0 disables) and offload_workers in its schema', () => {
    const properties = step.settings.properties as unknown as Record<string, { default?: unknown }>
    assert.equal(properties.offload_above_bytes.default, OFFLOAD_ABOVE_BYTES)
    assert.equal(properties.offload_workers.default, 1)
  })

  it('analyses a 200 KB text in a worker, with the in-thread findings, while the event loop keeps running', async () => {
    const text = documentOf(200_000)
    const detector = new CountingDetector(loadModel())
    const offloaded = instanceOf({}, detector)
    // The first text starts the thread and warms it up; the second one is measured.
    await run(offloaded, toolResult(documentOf(150_000)))
    detector.calls = 0
    let result: Awaited<ReturnType<typeof run>> | undefined
    const { gap: offloadedGap } = await measureEventLoop(async () => {
      result = await run(offloaded, toolResult(text))
    })
    assert.equal(detector.calls, 1, 'only the short user message was analysed on this thread')
    assert.equal(offloaded.pool?.workers.length, 1)

    const inThread = instanceOf({ offload_above_bytes: 0 })
    let expected: Awaited<ReturnType<typeof run>> | undefined
    const { gap: inThreadGap } = await measureEventLoop(async () => {
      expected = await run(inThread, toolResult(text))
    })
    assert.equal(inThread.pool, undefined)
    assert.equal(result?.verdict.kind, 'block')
    assert.deepEqual(result?.findings, expected?.findings)
    assert.ok(
      offloadedGap < inThreadGap / 2,
      `longest event-loop gap ${offloadedGap.toFixed(1)} ms offloaded, ${inThreadGap.toFixed(1)} ms in-thread`,
    )
  })

  it('keeps short texts on the calling thread and starts no worker for them', async () => {
    const detector = new CountingDetector(loadModel())
    const instance = instanceOf({}, detector)
    const verdict = instance.onRequest?.(makeRequestContext(makeExchange(toolResult(TOOL_ATTACKS.addressed))))
    assert.ok(verdict && !(verdict instanceof Promise), 'a synchronous verdict')
    assert.equal(verdict.kind, 'block')
    assert.equal(detector.calls, 2)
    assert.equal(instance.pool?.workers.length ?? 0, 0)
  })

  it('measures the limit in UTF-8 bytes', () => {
    assert.equal(isLongerThan('a'.repeat(100), 0), false, '0 disables offloading')
    assert.equal(isLongerThan('a'.repeat(100), 100), false)
    assert.equal(isLongerThan('a'.repeat(101), 100), true)
    assert.equal(isLongerThan('é'.repeat(50), 100), false) // 100 bytes
    assert.equal(isLongerThan('会'.repeat(34), 100), true) // 102 bytes in 34 units
  })

  it('analyses one long text once when calls with it overlap', async () => {
    const instance = instanceOf({ cache_size: 10 })
    const pool = instance.pool as AnalysisPool
    const analyze = pool.analyze.bind(pool)
    let analysed = 0
    pool.analyze = (...args) => {
      analysed++
      return analyze(...args)
    }
    const text = documentOf(40_000)
    const [a, b] = await Promise.all([run(instance, toolResult(text)), run(instance, toolResult(text))])
    assert.equal(analysed, 1)
    assert.deepEqual(a.findings, b.findings)
    assert.equal(a.verdict.kind, 'block')
    await run(instance, toolResult(text))
    assert.equal(analysed, 1, 'the third call finds the analysis cached')
  })

  it('fails closed with GOV_ERR_INJECTION_WORKER_FAILED when the worker dies, and starts a new one next time', async () => {
    const instance = instanceOf()
    const pending = run(instance, toolResult(documentOf(100_000)))
    const [worker] = instance.pool?.workers ?? []
    assert.ok(worker)
    await worker.terminate()
    await assert.rejects(
      pending,
      (error: unknown) => error instanceof GovError && error.code === WORKER_FAILED,
    )
    assert.equal(instance.pool?.workers.length, 0)
    const retry = await run(instance, toolResult(documentOf(100_000)))
    assert.equal(retry.verdict.kind, 'block')
  })

  it('rejects with GOV_ERR_INJECTION_WORKER_FAILED when the analysis throws in the worker', async () => {
    const pool = new AnalysisPool({ size: 1, logger: makeServices().logger, model: loadModel() })
    try {
      // A channel the detector does not know makes the worker's analysis throw.
      await assert.rejects(
        pool.analyze('x'.repeat(10), 'nonsense' as Channel),
        (error: unknown) => error instanceof GovError && error.code === WORKER_FAILED,
      )
      assert.equal(pool.workers.length, 1, 'the thread survives a failed analysis')
    } finally {
      await pool.close()
    }
  })

  it('stops its workers on close() and refuses work afterwards', async () => {
    const instance = instanceOf()
    await run(instance, toolResult(documentOf(40_000)))
    assert.equal(instance.pool?.workers.length, 1)
    await instance.close()
    assert.equal(instance.pool?.workers.length, 0)
    await assert.rejects(
      run(instance, toolResult(documentOf(40_000))),
      (error: unknown) => error instanceof GovError && error.code === POOL_CLOSED,
    )
  })

  it('never keeps the process alive: a process that analysed a long text and did not close exits', () => {
    const index = new URL('../src/index.js', import.meta.url).href
    const testing = import.meta.resolve('@gov/core/testing')
    const script = `
      const { default: step } = await import(${JSON.stringify(index)})
      const { makeExchange, makeRequestContext, makeServices } = await import(${JSON.stringify(testing)})
      const settings = ${JSON.stringify(SETTINGS)}
      const instance = await step.create(settings, makeServices('detect_injection'))
      const text = ${JSON.stringify(PARAGRAPH)}.repeat(400)
      const ctx = makeRequestContext(makeExchange([{ source: 'tool', toolResults: [{ toolCallId: 'c', text }] }]))
      await instance.onRequest(ctx)
      console.log(instance.pool.workers.length)
    `
    // A file, not `--input-type=module -e`: workers inherit the flags, and that one refuses file entry points.
    const dir = mkdtempSync(join(tmpdir(), 'gov-detect-injection-'))
    const file = join(dir, 'exits.mjs')
    writeFileSync(file, script)
    const child = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 })
    rmSync(dir, { recursive: true, force: true })
    assert.equal(child.signal, null, 'the process ended on its own')
    assert.equal(child.status, 0, `${child.stdout}\n${child.stderr}`)
    assert.equal(child.stdout.trim(), '1', 'a worker was running when the script ended')
  })
})
