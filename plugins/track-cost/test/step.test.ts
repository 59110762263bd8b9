import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallInfo, Finding, UpstreamOutcome, Usage } from '@gov/core'
import {
  MemoryKeyValueStore,
  MemorySessions,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
  tablePrices,
} from '@gov/core/testing'
import plugin, {
  BUDGET_EXCEEDED,
  MODEL_PRICE_UNKNOWN,
  resolveSettings,
  secondsToRenewal,
  TrackCostStep,
} from '../src/index.js'

/** 2026-03-15 12:00:00 UTC. */
const NOON = Date.UTC(2026, 2, 15, 12)

function clock(start = NOON) {
  const c = { t: start, now: () => c.t }
  return c
}

/** $1 per million input tokens and $2 per million output tokens: 1M in + 1M out = $3. */
const PRICES = { 'model-a': { input: 1, output: 2 } }

function makeStep(
  overrides: Parameters<typeof resolveSettings>[0] = {},
  shared: { c?: ReturnType<typeof clock>; kv?: MemoryKeyValueStore; sessions?: MemorySessions } = {},
) {
  const c = shared.c ?? clock()
  const sessions = shared.sessions ?? new MemorySessions(c.now)
  const services = makeServices('track_cost', {
    kv: shared.kv ?? new MemoryKeyValueStore(c.now),
    memorySessions: sessions,
    now: c.now,
    prices: tablePrices({ 'book-model': { input: 10, output: 10 } }),
  })
  const step = new TrackCostStep(resolveSettings({ prices: PRICES, ...overrides }), services)
  return { step, services, clock: c, sessions }
}

const AGENT: Partial<CallInfo> = { agentId: 'agent-a', sessionId: undefined }

function exchangeOf(model = 'model-a', body: Record<string, unknown> = {}) {
  return makeExchange([{ source: 'user', text: 'hello there' }], { model, body })
}

/** One answered call: the outcome hook with the given usage. */
async function answered(
  step: TrackCostStep,
  usage: Usage | undefined,
  options: { call?: Partial<CallInfo>; model?: string; findings?: Finding[] } = {},
) {
  const exchange = exchangeOf(options.model)
  const outcome: UpstreamOutcome = {
    kind: 'success',
    status: 200,
    answer: makeAnswer('the answer text', [], {
      model: options.model ?? 'model-a',
      ...(usage ? { usage } : {}),
    }),
    usage,
    durationMs: 3,
  }
  await step.onUpstreamOutcome(
    makeOutcomeContext(exchange, outcome, { call: options.call ?? AGENT, findings: options.findings ?? [] }),
  )
}

async function request(
  step: TrackCostStep,
  options: {
    call?: Partial<CallInfo>
    model?: string
    body?: Record<string, unknown>
    findings?: Finding[]
  } = {},
) {
  return step.onRequest(
    makeRequestContext(exchangeOf(options.model, options.body), {
      call: options.call ?? AGENT,
      findings: options.findings ?? [],
    }),
  )
}

describe('track_cost: recording', () => {
  it('prices the usage the provider reports and adds it to the agent’s day and month', async () => {
    const { step, services } = makeStep()
    const findings: Finding[] = []
    await answered(step, { inputTokens: 1_000_000, outputTokens: 500_000 }, { findings })
    await answered(step, { inputTokens: 500_000, outputTokens: 0 })
    const view = (await step.describeAgent('agent-a')).spend as Record<string, unknown>
    assert.equal(view.today_usd, 2.5)
    assert.equal(view.month_usd, 2.5)
    assert.equal(view.day, '2026-03-15')
    assert.equal(
      findings.length,
      0,
      'a priced answer is no finding: it would flag every call in the overview',
    )
    assert.equal(services.counts.get('gov_cost_usd_total{"agent":"agent-a","model":"model-a"}'), 2.5)
    assert.equal(
      services.counts.get('gov_tokens_total{"agent":"agent-a","model":"model-a","direction":"input"}'),
      1_500_000,
    )
    assert.equal(
      services.counts.get('gov_tokens_total{"agent":"agent-a","model":"model-a","direction":"output"}'),
      500_000,
    )
  })

  it('uses the host’s price book for models not in the prices table', async () => {
    const { step } = makeStep()
    await answered(step, { inputTokens: 100_000, outputTokens: 100_000 }, { model: 'book-model' })
    assert.equal(((await step.describeAgent('agent-a')).spend as Record<string, unknown>).today_usd, 2)
  })

  it('counts the tokens itself when the provider reports no usage', async () => {
    const { step, services } = makeStep()
    await answered(step, undefined)
    const input = services.counts.get(
      'gov_tokens_total{"agent":"agent-a","model":"model-a","direction":"input"}',
    )
    const output = services.counts.get(
      'gov_tokens_total{"agent":"agent-a","model":"model-a","direction":"output"}',
    )
    // The fake counter: ceil(chars / 4) + 4 per message part ('hello there'); the answer 'the answer text'.
    assert.deepEqual([input, output], [7, 4])
    assert.equal(((await step.describeAgent('agent-a')).spend as Record<string, unknown>).today_usd, 15e-6)
  })

  it('charges nothing for a failed upstream call', async () => {
    const { step } = makeStep()
    const exchange = exchangeOf()
    await step.onUpstreamOutcome(
      makeOutcomeContext(
        exchange,
        { kind: 'failure', reason: 'status', status: 500, durationMs: 1 },
        { call: AGENT },
      ),
    )
    assert.equal(((await step.describeAgent('agent-a')).spend as Record<string, unknown>).today_usd, 0)
  })

  it('adds concurrent costs exactly (atomic float increments), on two replicas sharing one store', async () => {
    const c = clock()
    const kv = new MemoryKeyValueStore(c.now)
    const sessions = new MemorySessions(c.now)
    const a = makeStep({}, { c, kv, sessions }).step
    const b = makeStep({}, { c, kv, sessions }).step
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        answered(
          i % 2 ? a : b,
          { inputTokens: 100_000, outputTokens: 0 },
          { call: { ...AGENT, sessionId: 's' } },
        ),
      ),
    )
    const spend = (await a.describeAgent('agent-a')).spend as Record<string, unknown>
    assert.equal(spend.today_usd, 4)
    const session = await b.describeSession(
      sessions.store('track_cost').scope({ ...AGENT, sessionId: 's' } as CallInfo),
    )
    assert.equal(session?.spent_usd, 4)
  })

  it('keeps agents apart, whatever characters their ids hold', async () => {
    const { step } = makeStep()
    await answered(step, { inputTokens: 1_000_000, outputTokens: 0 }, { call: { agentId: 'a:d:x' } })
    assert.equal(((await step.describeAgent('a')).spend as Record<string, unknown>).today_usd, 0)
    assert.equal(((await step.describeAgent('a:d:x')).spend as Record<string, unknown>).today_usd, 1)
  })

  it('books each call on the UTC day and month it happens in, at the boundaries and when the clock goes back', async () => {
    const { step, clock: c } = makeStep()
    const view = async () => (await step.describeAgent('agent-a')).spend as Record<string, unknown>
    const spend = (usd: number) => answered(step, { inputTokens: usd * 1_000_000, outputTokens: 0 })
    c.t = Date.UTC(2026, 0, 31, 23, 59, 59, 999)
    await spend(1)
    c.t += 1 // 2026-02-01 00:00:00.000: a new day and a new month
    await spend(2)
    assert.equal((await view()).day, '2026-02-01')
    assert.equal((await view()).today_usd, 2)
    assert.equal((await view()).month_usd, 2)
    c.t -= 1 // the clock steps back into January
    await spend(4)
    assert.deepEqual([(await view()).today_usd, (await view()).month_usd], [5, 5])
    c.t = Date.UTC(2026, 1, 1, 23, 59, 59, 999)
    await spend(8)
    assert.deepEqual([(await view()).today_usd, (await view()).month_usd], [10, 10])
    c.t = Date.UTC(2026, 1, 2)
    await spend(16)
    assert.deepEqual([(await view()).today_usd, (await view()).month_usd], [16, 26])
  })
  it('writes its debug line when the logger takes debug lines, and builds none when it drops them', async () => {
    for (const level of ['debug', 'info']) {
      const lines: unknown[] = []
      const logger = {
        debug: (obj: unknown, msg?: string) => lines.push([obj, msg]),
        info() {},
        warn() {},
        error() {},
        isLevelEnabled: (l: string) => (l === 'debug' ? level === 'debug' : true),
      }
      const step = new TrackCostStep(
        resolveSettings({ prices: PRICES }),
        makeServices('track_cost', { logger, prices: tablePrices({}) }),
      )
      await answered(step, { inputTokens: 1_000_000, outputTokens: 0 })
      assert.deepEqual(
        lines,
        level === 'debug' ? [[{ usd: 1, input_tokens: 1_000_000, output_tokens: 0 }, 'cost recorded']] : [],
      )
    }
  })
})

describe('track_cost: budgets', () => {
  it('refuses a call whose estimate would exceed the daily budget, with 429 budget_exceeded, what is left and retry-after', async () => {
    const { step, services } = makeStep({ budgets: { agent_daily_usd: 1 } })
    await answered(step, { inputTokens: 900_000, outputTokens: 0 })
    assert.equal((await request(step, { body: { max_tokens: 1000 } })).kind, 'continue')
    const findings: Finding[] = []
    const refused = await request(step, { body: { max_tokens: 100_000 }, findings })
    assert.equal(refused.kind, 'block')
    if (refused.kind !== 'block') return
    assert.equal(refused.code, BUDGET_EXCEEDED)
    assert.equal(refused.status, 429)
    assert.equal(refused.headers?.['retry-after'], String(12 * 3600))
    assert.equal(findings[0]?.detail?.budget, 'agent_daily_usd')
    // The first call's estimate is still held: its outcome has not arrived.
    const held = Number(findings[0]?.detail?.held_usd)
    assert.ok(held > 0)
    assert.ok(Math.abs(Number(findings[0]?.detail?.remaining_usd) + held - 0.1) < 1e-9)
    assert.equal(services.counts.get('gov_budget_refusals_total{"reason":"budget_exceeded"}'), 1)
  })

  it('estimates output with default_output_tokens when the request sets no max_tokens', async () => {
    const { step } = makeStep({ budgets: { agent_daily_usd: 1 }, default_output_tokens: 100_000 })
    await answered(step, { inputTokens: 850_000, outputTokens: 0 })
    assert.equal((await request(step)).kind, 'block', '0.85 + 0.2 > 1')
    assert.equal((await request(step, { body: { max_completion_tokens: 10 } })).kind, 'continue')
  })

  it('a budget used up refuses every call, even of a model without a price', async () => {
    const { step } = makeStep({ budgets: { agent_daily_usd: 1 } })
    await answered(step, { inputTokens: 1_000_000, outputTokens: 0 })
    assert.equal((await request(step, { model: 'unpriced' })).kind, 'block')
  })

  it('the daily budget renews at UTC midnight; the monthly one at the month’s end', async () => {
    const { step, clock: c } = makeStep({ budgets: { agent_daily_usd: 1, agent_monthly_usd: 1.5 } })
    await answered(step, { inputTokens: 1_000_000, outputTokens: 0 })
    assert.equal((await request(step, { body: { max_tokens: 0 } })).kind, 'block')
    c.t += 12 * 3600 * 1000
    assert.equal((await request(step, { body: { max_tokens: 0 } })).kind, 'continue')
    await answered(step, { inputTokens: 600_000, outputTokens: 0 })
    const monthly = await request(step, { body: { max_tokens: 0 } })
    assert.equal(monthly.kind, 'block')
    if (monthly.kind === 'block') {
      assert.equal(monthly.headers?.['retry-after'], String(secondsToRenewal(c.t).month))
    }
    c.t = Date.UTC(2026, 3, 1, 0, 0, 1)
    assert.equal((await request(step, { body: { max_tokens: 0 } })).kind, 'continue')
  })

  it('session_usd applies per (agent, session), not to calls without a session or to other sessions', async () => {
    const { step } = makeStep({ budgets: { session_usd: 0.5 } })
    const s1 = { ...AGENT, sessionId: 's1' }
    await answered(step, { inputTokens: 500_000, outputTokens: 0 }, { call: s1 })
    const refused = await request(step, { call: s1, body: { max_tokens: 0 } })
    assert.equal(refused.kind, 'block')
    if (refused.kind === 'block') assert.equal(refused.headers, undefined, 'a session budget does not renew')
    assert.equal((await request(step, { call: { ...AGENT, sessionId: 's2' } })).kind, 'continue')
    assert.equal((await request(step, { call: { agentId: 'agent-b', sessionId: 's1' } })).kind, 'continue')
    assert.equal((await request(step)).kind, 'continue')
  })
})

describe('track_cost: calls in flight', () => {
  /** Each request estimated at $0.30: ~9 input tokens at $1/M plus 150 000 output tokens at $2/M. */
  const big = { body: { max_tokens: 150_000 } }

  it('concurrent calls see each other’s estimates: exactly as many as fit the budget go through', async () => {
    const { step } = makeStep({ budgets: { agent_daily_usd: 1 } })
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => request(step, big)))
    assert.equal(verdicts.filter((v) => v.kind === 'continue').length, 3)
  })

  it('two replicas on one store hold against one budget', async () => {
    const c = clock()
    const kv = new MemoryKeyValueStore(c.now)
    const sessions = new MemorySessions(c.now)
    const a = makeStep({ budgets: { session_usd: 1 } }, { c, kv, sessions }).step
    const b = makeStep({ budgets: { session_usd: 1 } }, { c, kv, sessions }).step
    const call = { ...AGENT, sessionId: 's' }
    const verdicts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => request(i % 2 ? a : b, { ...big, call })),
    )
    assert.equal(verdicts.filter((v) => v.kind === 'continue').length, 3)
  })

  it('the outcome releases the hold (success or failure); a hold whose outcome never comes expires', async () => {
    const { step, clock: c } = makeStep({ budgets: { agent_daily_usd: 1 }, hold_s: 60 })
    const exchange = exchangeOf('model-a', big.body)
    const inFlight = async () =>
      ((await step.describeAgent('agent-a')).spend as Record<string, number>).in_flight_usd
    const state = new Map<string, unknown>()
    assert.equal(
      (await step.onRequest(makeRequestContext(exchange, { call: AGENT, state }))).kind,
      'continue',
    )
    assert.ok((await inFlight()) > 0.29)
    await step.onUpstreamOutcome(
      makeOutcomeContext(
        exchange,
        { kind: 'failure', reason: 'timeout', durationMs: 1 },
        { call: AGENT, state },
      ),
    )
    assert.equal(await inFlight(), 0)
    const answeredState = new Map<string, unknown>()
    await step.onRequest(makeRequestContext(exchange, { call: AGENT, state: answeredState }))
    const answer = makeAnswer('ok', [], { model: 'model-a', usage: { inputTokens: 10, outputTokens: 10 } })
    await step.onUpstreamOutcome(
      makeOutcomeContext(
        exchange,
        { kind: 'success', status: 200, answer, usage: answer.usage, durationMs: 1 },
        { call: AGENT, state: answeredState },
      ),
    )
    assert.equal(await inFlight(), 0, 'a success releases its hold too')
    assert.equal((await request(step, big)).kind, 'continue', 'held, never released')
    c.t += 60_000
    assert.ok((await inFlight()) > 0.29, 'still held in the next bucket')
    c.t += 60_000
    assert.equal(await inFlight(), 0, 'gone after at most twice hold_s')
  })
})

describe('track_cost: unknown models and views', () => {
  it('unknown_model allow reports a finding and lets the call go; block refuses it with 403', async () => {
    const allow = makeStep({ budgets: { agent_daily_usd: 1 } }).step
    const findings: Finding[] = []
    assert.equal((await request(allow, { model: 'mystery', findings })).kind, 'continue')
    assert.equal(findings[0]?.type, MODEL_PRICE_UNKNOWN)
    const block = makeStep({ unknown_model: 'block' }).step
    const refused = await request(block, { model: 'mystery' })
    assert.equal(refused.kind, 'block')
    if (refused.kind === 'block') {
      assert.equal(refused.code, MODEL_PRICE_UNKNOWN)
      assert.equal(refused.status, 403)
    }
    assert.equal((await request(block, { model: 'model-a' })).kind, 'continue')
    const outcomeFindings: Finding[] = []
    await answered(
      allow,
      { inputTokens: 5, outputTokens: 5 },
      { model: 'mystery', findings: outcomeFindings },
    )
    assert.equal(outcomeFindings[0]?.type, MODEL_PRICE_UNKNOWN)
  })

  it('describeAgent gives the spend section: today, month, budgets and what remains', async () => {
    const { step } = makeStep({ budgets: { agent_daily_usd: 5, session_usd: 1 } })
    await answered(step, { inputTokens: 1_000_000, outputTokens: 1_000_000 })
    assert.deepEqual(await step.describeAgent('agent-a'), {
      spend: {
        day: '2026-03-15',
        today_usd: 3,
        month: '2026-03',
        month_usd: 3,
        in_flight_usd: 0,
        budgets: { agent_daily_usd: 5, agent_monthly_usd: null, session_usd: 1 },
        remaining: { agent_daily_usd: 2, agent_monthly_usd: null },
      },
    })
  })

  it('without budgets and with unknown_model allow the request phase does nothing', async () => {
    const { step } = makeStep()
    const findings: Finding[] = []
    assert.equal((await request(step, { model: 'mystery', findings })).kind, 'continue')
    assert.equal(findings.length, 0)
  })

  it('is the track_cost step', () => {
    assert.equal(plugin.name, 'track_cost')
    assert.deepEqual(resolveSettings().budgets, {})
  })
})
