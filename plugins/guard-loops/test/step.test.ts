import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallInfo, Verdict } from '@gov/core'
import {
  MemoryKeyValueStore,
  MemorySessions,
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeServices,
  makeToolCallContext,
} from '@gov/core/testing'
import plugin, {
  CallHistory,
  callHash,
  findCycle,
  GuardLoopsStep,
  LOOP_DETECTED,
  resolveSettings,
} from '../src/index.js'

function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

function makeStep(
  overrides: Parameters<typeof resolveSettings>[0] = {},
  shared: { c?: ReturnType<typeof clock>; kv?: MemoryKeyValueStore; sessions?: MemorySessions } = {},
) {
  const c = shared.c ?? clock()
  const services = makeServices('guard_loops', {
    kv: shared.kv ?? new MemoryKeyValueStore(c.now),
    memorySessions: shared.sessions ?? new MemorySessions(c.now),
    now: c.now,
  })
  return { step: new GuardLoopsStep(resolveSettings(overrides), services), services, clock: c }
}

const SESSION: Partial<CallInfo> = { agentId: 'agent-a', sessionId: 's1' }

/** An answer with one tool call going through the tool-call hook. */
async function toolCall(
  step: GuardLoopsStep,
  name: string,
  args: unknown,
  call: Partial<CallInfo> = SESSION,
  findings: import('@gov/core').Finding[] = [],
): Promise<Verdict> {
  const text = typeof args === 'string' ? args : JSON.stringify(args)
  const answer = makeAnswer(undefined, [{ id: 'c1', name, arguments: text }])
  const exchange = makeExchange([{ source: 'user', text: 'go' }])
  const tc = answer.message.toolCalls[0]!
  return step.onToolCall(makeToolCallContext(exchange, answer, tc, { call, findings }))
}

function assertLoop(verdict: Verdict, rule: string) {
  assert.equal(verdict.kind, 'block')
  if (verdict.kind !== 'block') return
  assert.equal(verdict.code, LOOP_DETECTED)
  assert.equal(verdict.status, 429)
  assert.match(verdict.reason, new RegExp(`rule ${rule}`))
}

describe('guard_loops: max_repeats', () => {
  it('refuses the call after max_repeats identical calls, arguments compared as normalised JSON', async () => {
    const { step, services } = makeStep({ max_repeats: 3, detect_cycles: false })
    assert.equal((await toolCall(step, 'search', { q: 'x', page: 1 })).kind, 'continue')
    assert.equal((await toolCall(step, 'search', '{ "page": 1,  "q": "x" }')).kind, 'continue')
    assert.equal((await toolCall(step, 'search', { page: 1.0, q: 'x' })).kind, 'continue')
    const findings: import('@gov/core').Finding[] = []
    const fourth = await toolCall(step, 'search', { q: 'x', page: 1 }, SESSION, findings)
    assertLoop(fourth, 'max_repeats')
    assert.deepEqual(findings[0]?.detail, { rule: 'max_repeats', tool: 'search', count: 4, limit: 3 })
    assert.equal(services.counts.get('gov_loop_detections_total{"rule":"max_repeats"}'), 1)
  })

  it('other arguments, another tool, another session or another agent are other calls', async () => {
    const { step } = makeStep({ max_repeats: 1, detect_cycles: false })
    assert.equal((await toolCall(step, 'search', { q: 'x' })).kind, 'continue')
    assert.equal((await toolCall(step, 'search', { q: 'y' })).kind, 'continue')
    assert.equal((await toolCall(step, 'fetch', { q: 'x' })).kind, 'continue')
    assert.equal(
      (await toolCall(step, 'search', { q: 'x' }, { ...SESSION, sessionId: 's2' })).kind,
      'continue',
    )
    assert.equal(
      (await toolCall(step, 'search', { q: 'x' }, { ...SESSION, agentId: 'agent-b' })).kind,
      'continue',
    )
    assertLoop(await toolCall(step, 'search', { q: 'x' }), 'max_repeats')
  })

  it('counts within window_s only', async () => {
    const { step, clock: c } = makeStep({ max_repeats: 2, window_s: 10, detect_cycles: false })
    await toolCall(step, 'poll', { job: 1 })
    await toolCall(step, 'poll', { job: 1 })
    c.t += 10_001
    assert.equal((await toolCall(step, 'poll', { job: 1 })).kind, 'continue')
    assert.equal((await toolCall(step, 'poll', { job: 1 })).kind, 'continue')
    assertLoop(await toolCall(step, 'poll', { job: 1 }), 'max_repeats')
  })

  it('without X-Gov-Session the agent is the scope', async () => {
    const { step } = makeStep({ max_repeats: 1, detect_cycles: false })
    const noSession = { agentId: 'agent-a', sessionId: undefined }
    await toolCall(step, 'search', { q: 'x' }, noSession)
    assertLoop(await toolCall(step, 'search', { q: 'x' }, noSession), 'max_repeats')
    assert.equal(
      (await toolCall(step, 'search', { q: 'x' }, { ...noSession, agentId: 'agent-b' })).kind,
      'continue',
    )
  })

  it('concurrent identical calls are counted exactly (atomic increments)', async () => {
    const { step } = makeStep({ max_repeats: 5, detect_cycles: false })
    const verdicts = await Promise.all(Array.from({ length: 12 }, () => toolCall(step, 'search', { q: 'x' })))
    assert.equal(verdicts.filter((v) => v.kind === 'continue').length, 5)
  })

  it('arguments that are not JSON are compared as sent', () => {
    assert.equal(callHash('t', ' a b '), callHash('t', 'a b'))
    assert.notEqual(callHash('t', 'a b'), callHash('t', 'a  b'))
    assert.notEqual(callHash('t', '{}'), callHash('u', '{}'))
    assert.equal(callHash('t', '{"b":[1,2],"a":"é"}'), callHash('t', '{"a":"\\u00e9","b":[1,2]}'))
  })
})

describe('guard_loops: max_tool_calls and max_turns', () => {
  it('refuses the tool call past max_tool_calls in a session', async () => {
    const { step } = makeStep({ max_tool_calls: 3, max_repeats: 0, detect_cycles: false })
    for (let i = 0; i < 3; i++) assert.equal((await toolCall(step, 'search', { i })).kind, 'continue')
    assertLoop(await toolCall(step, 'search', { i: 99 }), 'max_tool_calls')
    assert.equal(
      (await toolCall(step, 'search', { i: 0 }, { ...SESSION, sessionId: 'other' })).kind,
      'continue',
    )
  })

  it('refuses the call past max_turns before it goes upstream', async () => {
    const { step } = makeStep({ max_turns: 2 })
    const exchange = makeExchange([{ source: 'user', text: 'hi' }])
    for (let i = 0; i < 2; i++) {
      assert.equal((await step.onRequest(makeRequestContext(exchange, { call: SESSION }))).kind, 'continue')
    }
    assertLoop(await step.onRequest(makeRequestContext(exchange, { call: SESSION })), 'max_turns')
  })

  it('counts nothing per turn with max_turns off (no store call)', async () => {
    const sessions = new MemorySessions()
    const { step } = makeStep({}, { sessions })
    const exchange = makeExchange([{ source: 'user', text: 'hi' }])
    assert.equal((await step.onRequest(makeRequestContext(exchange, { call: SESSION }))).kind, 'continue')
    assert.equal(
      await sessions
        .store('guard_loops')
        .scope({ ...SESSION } as CallInfo)
        .get('t'),
      undefined,
    )
  })
})

describe('guard_loops: cycles', () => {
  it('finds A→B repeated three times, and A→B→C, but not one call repeated or a broken pattern', () => {
    assert.deepEqual(findCycle(['x', 'a', 'b', 'a', 'b', 'a', 'b'], 4, 3), { length: 2, round: [5, 6] })
    assert.equal(findCycle(['a', 'b', 'a', 'b', 'a'], 4, 3), undefined)
    assert.equal(findCycle(['a', 'a', 'a', 'a', 'a', 'a'], 4, 3), undefined)
    assert.equal(findCycle(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'], 4, 3)?.length, 3)
    assert.equal(findCycle(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'], 2, 3), undefined)
    assert.equal(findCycle(['a', 'b', 'a', 'c', 'a', 'b'], 4, 3), undefined)
  })

  it('refuses the call that completes the third round of the same calls', async () => {
    const { step, services } = makeStep({ max_repeats: 0 })
    const calls: [string, unknown][] = [
      ['search', { q: 'x' }],
      ['open', { id: 1 }],
    ]
    for (let round = 0; round < 2; round++) {
      for (const [name, args] of calls) assert.equal((await toolCall(step, name, args)).kind, 'continue')
    }
    assert.equal((await toolCall(step, 'search', { q: 'x' })).kind, 'continue')
    const findings: import('@gov/core').Finding[] = []
    assertLoop(await toolCall(step, 'open', { id: 1 }, SESSION, findings), 'cycle')
    assert.deepEqual(findings[0]?.detail?.cycle, ['search', 'open'])
    assert.equal(services.counts.get('gov_loop_detections_total{"rule":"cycle"}'), 1)
  })

  it('by call (default) an alternation with new arguments is no cycle; by name it is', async () => {
    const byCall = makeStep({ max_repeats: 0 }).step
    const byName = makeStep({ max_repeats: 0, cycle_by: 'name' }).step
    const verdicts: Record<string, Verdict[]> = { byCall: [], byName: [] }
    for (let i = 0; i < 3; i++) {
      for (const name of ['search', 'open']) {
        verdicts.byCall?.push(await toolCall(byCall, name, { i }))
        verdicts.byName?.push(await toolCall(byName, name, { i }))
      }
    }
    assert.ok(verdicts.byCall?.every((v) => v.kind === 'continue'))
    assertLoop(verdicts.byName?.at(-1) as Verdict, 'cycle')
  })

  it('keeps a bounded history: the session holds cycle_max_length × cycle_repeats calls', async () => {
    const sessions = new MemorySessions()
    const { step } = makeStep({ max_repeats: 0, cycle_max_length: 2, cycle_repeats: 2 }, { sessions })
    for (let i = 0; i < 50; i++) await toolCall(step, `tool${i}`, {})
    const state = sessions.store('guard_loops').scope({ ...SESSION } as CallInfo)
    const fields = await state.entries()
    assert.equal(Object.keys(fields).filter((f) => f.startsWith('h')).length, 4)
    assert.deepEqual(
      CallHistory.fromFields(fields).map((e) => e.name),
      ['tool46', 'tool47', 'tool48', 'tool49'],
    )
  })
})

describe('guard_loops: replicas and admin view', () => {
  it('two replicas on one store share the counts of a session', async () => {
    const c = clock()
    const kv = new MemoryKeyValueStore(c.now)
    const sessions = new MemorySessions(c.now)
    const a = makeStep({ max_repeats: 2, max_tool_calls: 5 }, { c, kv, sessions }).step
    const b = makeStep({ max_repeats: 2, max_tool_calls: 5 }, { c, kv, sessions }).step
    await toolCall(a, 'send', { to: 'x' })
    await toolCall(b, 'send', { to: 'x' })
    assertLoop(await toolCall(a, 'send', { to: 'x' }), 'max_repeats')
    await toolCall(b, 'other', { n: 1 })
    await toolCall(a, 'other', { n: 2 })
    assertLoop(await toolCall(b, 'other', { n: 3 }), 'max_tool_calls')
  })

  it('describeSession shows counts and recent tool names, never arguments', async () => {
    const sessions = new MemorySessions()
    const { step } = makeStep({ max_turns: 10 }, { sessions })
    await step.onRequest(
      makeRequestContext(makeExchange([{ source: 'user', text: 'hi' }]), { call: SESSION }),
    )
    await toolCall(step, 'send_email', { to: 'secret@example.com' })
    const view = await step.describeSession(sessions.store('guard_loops').scope({ ...SESSION } as CallInfo))
    assert.equal(view?.turns, 1)
    assert.equal(view?.tool_calls, 1)
    assert.deepEqual(view?.recent_tools, ['send_email'])
    assert.doesNotMatch(JSON.stringify(view), /secret@example/)
  })

  it('is the guard_loops step with its defaults', () => {
    assert.equal(plugin.name, 'guard_loops')
    const s = resolveSettings()
    assert.deepEqual(
      [s.max_repeats, s.window_s, s.max_tool_calls, s.max_turns, s.detect_cycles],
      [5, 60, 0, 0, true],
    )
  })
})

describe('guard_loops: one answer counts each distinct call once', () => {
  /** One answer (e.g. the choices of an `n > 1` answer) with these calls, through the hook with one call state. */
  async function answerWith(step: GuardLoopsStep, calls: Array<[string, unknown]>): Promise<Verdict[]> {
    const answer = makeAnswer(
      undefined,
      calls.map(([name, args], i) => ({ id: `c${i}`, name, arguments: JSON.stringify(args) })),
    )
    const exchange = makeExchange([{ source: 'user', text: 'go' }])
    const state = new Map<string, unknown>()
    const verdicts: Verdict[] = []
    for (const tc of answer.message.toolCalls)
      verdicts.push(
        await step.onToolCall(makeToolCallContext(exchange, answer, tc, { call: SESSION, state })),
      )
    return verdicts
  }

  it('the same call in three choices is one call for max_repeats and max_tool_calls', async () => {
    const { step } = makeStep({ max_repeats: 1, max_tool_calls: 1, detect_cycles: false })
    const verdicts = await answerWith(step, [
      ['search', { q: 'x' }],
      ['search', { q: 'x' }],
      ['search', { q: 'x' }],
    ])
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      ['continue', 'continue', 'continue'],
    )
    // The next answer repeating it is the second call: over both limits.
    assertLoop(await toolCall(step, 'search', { q: 'x' }), 'max_repeats')
  })

  it('alternatives [search, read] in three choices are not a cycle', async () => {
    const { step } = makeStep({ max_repeats: 0, detect_cycles: true, cycle_max_length: 2, cycle_repeats: 2 })
    const pair: Array<[string, unknown]> = [
      ['search', { q: 'x' }],
      ['read', { id: 1 }],
    ]
    const verdicts = await answerWith(step, [...pair, ...pair, ...pair])
    assert.ok(verdicts.every((v) => v.kind === 'continue'))
  })

  it('different calls in one answer are each counted', async () => {
    const { step } = makeStep({ max_repeats: 0, max_tool_calls: 2, detect_cycles: false })
    const verdicts = await answerWith(step, [
      ['a', {}],
      ['b', {}],
      ['c', {}],
    ])
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      ['continue', 'continue', 'block'],
    )
  })
})
