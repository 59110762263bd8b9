import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { UpstreamOutcome, Verdict } from '@gov/core'
import {
  type FakeContextOptions,
  MemoryKeyValueStore,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
} from '@gov/core/testing'
import plugin, { BreakCircuitStep, CIRCUIT_OPEN, isFailure, resolveSettings } from '../src/index.js'

/** A clock tests move by hand; the store's TTLs follow it. */
function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

function makeStep(
  overrides: Parameters<typeof resolveSettings>[0] = {},
  c = clock(),
  kv = new MemoryKeyValueStore(c.now),
) {
  const services = makeServices('break_circuit', { kv, now: c.now })
  return { step: new BreakCircuitStep(resolveSettings(overrides), services), services, clock: c, kv }
}

const FAIL_500: UpstreamOutcome = { kind: 'failure', reason: 'status', status: 500, durationMs: 5 }
const FAIL_429: UpstreamOutcome = { kind: 'failure', reason: 'status', status: 429, durationMs: 5 }
const TIMEOUT: UpstreamOutcome = { kind: 'failure', reason: 'timeout', durationMs: 5 }
const SUCCESS: UpstreamOutcome = {
  kind: 'success',
  status: 200,
  answer: makeAnswer('ok'),
  usage: undefined,
  durationMs: 5,
}

/** One call through the step: request hook, then (when admitted) the outcome. */
async function call(
  step: BreakCircuitStep,
  outcome: UpstreamOutcome | undefined,
  options: { model?: string; requestId?: string; provider?: string } = {},
): Promise<{ verdict: Verdict; findings: FakeContextOptions['findings'] }> {
  const exchange = makeExchange([{ source: 'user', text: 'hi' }], { model: options.model ?? 'gpt-4o' })
  const state = new Map<string, unknown>()
  const findings: NonNullable<FakeContextOptions['findings']> = []
  const opts = { state, findings, call: { requestId: options.requestId ?? 'r' } }
  const verdict = await step.onRequest(makeRequestContext(exchange, opts))
  if (verdict.kind === 'continue' && outcome) {
    await step.onUpstreamOutcome(
      makeOutcomeContext(exchange, outcome, { ...opts, provider: options.provider ?? 'openai' }),
    )
  }
  return { verdict, findings }
}

describe('break_circuit: closed to open', () => {
  it('opens after failure_threshold consecutive failures and then refuses with 503 circuit_open and retry-after', async () => {
    const { step, services, clock: c } = makeStep({ failure_threshold: 3, open_s: 30 })
    for (let i = 0; i < 2; i++) assert.equal((await call(step, FAIL_500)).verdict.kind, 'continue')
    const third = await call(step, TIMEOUT)
    assert.equal(
      third.verdict.kind,
      'continue',
      'the third call went upstream: it is what opened the circuit',
    )
    assert.deepEqual(
      third.findings?.map((f) => [f.type, f.detail?.reason]),
      [['circuit_opened', 'timeout']],
    )
    c.t += 10_000
    const refused = await call(step, SUCCESS)
    assert.equal(refused.verdict.kind, 'block')
    if (refused.verdict.kind !== 'block') return
    assert.equal(refused.verdict.code, CIRCUIT_OPEN)
    assert.equal(refused.verdict.status, 503)
    assert.equal(refused.verdict.headers?.['retry-after'], '20')
    assert.equal(refused.findings?.[0]?.type, 'circuit_open')
    assert.equal(
      services.counts.get(
        'gov_circuit_transitions_total{"provider":"openai","model":"gpt-4o","transition":"opened"}',
      ),
      1,
    )
    assert.equal(services.counts.get('gov_circuit_rejections_total{"provider":"openai","model":"gpt-4o"}'), 1)
    assert.equal(services.counts.get('gov_circuit_state{"provider":"openai","model":"gpt-4o"}'), 1)
  })

  it('a success resets the count: failures must be consecutive', async () => {
    const { step } = makeStep({ failure_threshold: 3 })
    await call(step, FAIL_500)
    await call(step, FAIL_500)
    await call(step, SUCCESS)
    await call(step, FAIL_500)
    await call(step, FAIL_500)
    assert.equal((await call(step, SUCCESS)).verdict.kind, 'continue')
  })

  it('4xx answers are the caller’s fault: they do not count and reset the count', async () => {
    const { step } = makeStep({ failure_threshold: 2 })
    assert.equal(isFailure(FAIL_429), false)
    for (let i = 0; i < 5; i++) await call(step, FAIL_429)
    assert.equal((await call(step, undefined)).verdict.kind, 'continue')
    await call(step, FAIL_500)
    await call(step, FAIL_429)
    await call(step, FAIL_500)
    assert.equal((await call(step, undefined)).verdict.kind, 'continue')
  })

  it('timeouts, resets, unreachable providers and 5xx all count', () => {
    for (const reason of ['timeout', 'reset', 'unreachable'] as const) {
      assert.equal(isFailure({ kind: 'failure', reason, durationMs: 1 }), true)
    }
    assert.equal(isFailure({ kind: 'failure', reason: 'status', status: 503, durationMs: 1 }), true)
    assert.equal(isFailure(SUCCESS), false)
  })

  it('failures older than window_s are forgotten', async () => {
    const { step, clock: c } = makeStep({ failure_threshold: 3, window_s: 10 })
    await call(step, FAIL_500)
    await call(step, FAIL_500)
    c.t += 11_000
    await call(step, FAIL_500)
    await call(step, FAIL_500)
    assert.equal((await call(step, undefined)).verdict.kind, 'continue')
    await call(step, FAIL_500)
    assert.equal((await call(step, undefined)).verdict.kind, 'block')
  })

  it('circuits are per provider and model: another model, or the same model on the other endpoint, still flows', async () => {
    const { step } = makeStep({ failure_threshold: 1 })
    await call(step, FAIL_500, { model: 'gpt-4o' })
    assert.equal((await call(step, undefined, { model: 'gpt-4o' })).verdict.kind, 'block')
    assert.equal((await call(step, undefined, { model: 'gpt-4o-mini' })).verdict.kind, 'continue')
    const anthropic = makeExchange([{ source: 'user', text: 'hi' }], { model: 'gpt-4o' })
    Object.defineProperty(anthropic, 'vendor', { value: 'anthropic' })
    assert.equal((await step.onRequest(makeRequestContext(anthropic))).kind, 'continue')
  })
})

describe('break_circuit: half-open', () => {
  it('after open_s lets exactly one probe through; its success closes the circuit', async () => {
    const { step, services, clock: c } = makeStep({ failure_threshold: 1, open_s: 5 })
    await call(step, FAIL_500)
    c.t += 5_000
    const exchange = makeExchange([{ source: 'user', text: 'hi' }], { model: 'gpt-4o' })
    const probeState = new Map<string, unknown>()
    const probe = await step.onRequest(makeRequestContext(exchange, { state: probeState }))
    assert.equal(probe.kind, 'continue')
    const other = await call(step, undefined, { requestId: 'other' })
    assert.equal(other.verdict.kind, 'block', 'a second call waits for the probe')
    if (other.verdict.kind === 'block') assert.equal(other.verdict.headers?.['retry-after'], '1')
    const findings: NonNullable<FakeContextOptions['findings']> = []
    await step.onUpstreamOutcome(makeOutcomeContext(exchange, SUCCESS, { state: probeState, findings }))
    assert.deepEqual(
      findings.map((f) => f.type),
      ['circuit_closed'],
    )
    assert.equal(services.counts.get('gov_circuit_state{"provider":"openai","model":"gpt-4o"}'), 0)
    for (let i = 0; i < 3; i++) assert.equal((await call(step, SUCCESS)).verdict.kind, 'continue')
  })

  it('a failed probe opens the circuit again for open_s', async () => {
    const { step, clock: c } = makeStep({ failure_threshold: 1, open_s: 5 })
    await call(step, FAIL_500)
    c.t += 6_000
    const probe = await call(step, FAIL_500)
    assert.equal(probe.verdict.kind, 'continue')
    assert.deepEqual(
      probe.findings?.map((f) => f.type),
      ['circuit_probe', 'circuit_reopened'],
    )
    const refused = await call(step, undefined)
    assert.equal(refused.verdict.kind, 'block')
    if (refused.verdict.kind === 'block') assert.equal(refused.verdict.headers?.['retry-after'], '5')
  })

  it('a probe that never reports an outcome frees its lock after probe_timeout_s', async () => {
    const { step, clock: c } = makeStep({ failure_threshold: 1, open_s: 5, probe_timeout_s: 10 })
    await call(step, FAIL_500)
    c.t += 5_000
    assert.equal((await call(step, undefined, { requestId: 'lost' })).verdict.kind, 'continue')
    assert.equal((await call(step, undefined)).verdict.kind, 'block')
    c.t += 10_000
    assert.equal((await call(step, SUCCESS, { requestId: 'next' })).verdict.kind, 'continue')
    assert.equal((await call(step, undefined)).verdict.kind, 'continue', 'the second probe closed it')
  })
})

describe('break_circuit: shared across replicas', () => {
  it('two replicas on one store count failures together, both refuse, and only one of them probes', async () => {
    const c = clock()
    const kv = new MemoryKeyValueStore(c.now)
    const a = makeStep({ failure_threshold: 4, open_s: 5 }, c, kv).step
    const b = makeStep({ failure_threshold: 4, open_s: 5 }, c, kv).step
    await call(a, FAIL_500)
    await call(b, FAIL_500)
    await call(a, FAIL_500)
    assert.equal((await call(b, undefined)).verdict.kind, 'continue')
    await call(b, FAIL_500)
    assert.equal((await call(a, undefined)).verdict.kind, 'block')
    assert.equal((await call(b, undefined)).verdict.kind, 'block')
    c.t += 5_000
    const verdicts = await Promise.all(
      [a, b, a, b].map((step, i) => call(step, undefined, { requestId: `p${i}` })),
    )
    assert.equal(verdicts.filter((v) => v.verdict.kind === 'continue').length, 1)
  })

  it('many concurrent failures open the circuit exactly once', async () => {
    const { step, services } = makeStep({ failure_threshold: 3 })
    const exchange = makeExchange([{ source: 'user', text: 'hi' }], { model: 'gpt-4o' })
    await Promise.all(
      Array.from({ length: 20 }, () => step.onUpstreamOutcome(makeOutcomeContext(exchange, FAIL_500))),
    )
    assert.equal(
      services.counts.get(
        'gov_circuit_transitions_total{"provider":"openai","model":"gpt-4o","transition":"opened"}',
      ),
      1,
    )
  })
})

describe('break_circuit: plugin', () => {
  it('is the break_circuit step with defaults 5 failures / 60 s window / 30 s open', () => {
    assert.equal(plugin.name, 'break_circuit')
    assert.equal(plugin.core, '>=0.2.0 <0.4.0')
    const s = resolveSettings()
    assert.deepEqual([s.failure_threshold, s.window_s, s.open_s], [5, 60, 30])
  })

  it('a model name of any length or characters makes a bounded key', async () => {
    const { step } = makeStep({ failure_threshold: 1 })
    const model = `x:${'é/'.repeat(500)}`
    await call(step, FAIL_500, { model })
    assert.equal((await call(step, undefined, { model })).verdict.kind, 'block')
    assert.equal((await call(step, undefined, { model: `${model}y` })).verdict.kind, 'continue')
  })
})
