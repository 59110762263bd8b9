import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { StepServices } from '@gov/core'
import {
  MemoryFlights,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
} from '@gov/core/testing'
import plugin, { DEDUPE_HEADER, DedupeStep, requestKey } from '../src/index.js'
import type { DedupeSettings } from '../src/settings.js'

const defaults: DedupeSettings = {
  window_s: 60,
  coalesce: true,
  replay: 'deterministic',
  wait_s: 5,
  max_answer_bytes: 1_048_576,
}

function ask(text: string, body: Record<string, unknown> = {}) {
  return makeExchange([{ source: 'user', text }], {
    body: { messages: [{ role: 'user', content: text }], ...body },
  })
}

function answered(exchange: ReturnType<typeof ask>, text: string) {
  const answer = makeAnswer(text)
  ;(answer.body as Record<string, unknown>).choices = [{ message: { content: text } }]
  return makeOutcomeContext(exchange, {
    kind: 'success',
    status: 200,
    answer,
    usage: undefined,
    durationMs: 5,
  })
}

/** The key `onRequest` gives a request of `text` from the test context's call. */
function requestKeyOf(text: string): string {
  return requestKey(makeRequestContext(ask(text)).call, ask(text))
}

describe('dedupe step', () => {
  it('declares its name and defaults', () => {
    assert.equal(plugin.name, 'dedupe')
  })

  it('keys by agent and governed body, not by delivery fields', () => {
    const call = {
      requestId: 'r',
      agentId: 'a',
      sessionId: undefined,
      pipelineId: 'p',
      pipelineVersion: 1,
      mode: 'enforce' as const,
      flags: new Map(),
    }
    const plain = requestKey(call, ask('hi'))
    assert.equal(
      requestKey(call, ask('hi', { stream: true, stream_options: { include_usage: true } })),
      plain,
    )
    assert.notEqual(requestKey({ ...call, agentId: 'b' }, ask('hi')), plain)
    assert.notEqual(requestKey(call, ask('hi', { temperature: 0 })), plain)
  })

  it('replays a deterministic repeat within the window, and only for the same agent', async () => {
    const services = makeServices('dedupe')
    const step = new DedupeStep(defaults, services)
    const first = ask('what is 2+2', { temperature: 0 })
    const state = new Map<string, unknown>()
    assert.equal((await step.onRequest(makeRequestContext(first, { state }))).kind, 'continue')
    await step.onUpstreamOutcome({ ...answered(first, 'four'), state })
    const again = await step.onRequest(makeRequestContext(ask('what is 2+2', { temperature: 0 })))
    assert.equal(again.kind, 'respond')
    if (again.kind !== 'respond') return
    assert.equal(again.headers?.[DEDUPE_HEADER], 'replayed')
    assert.deepEqual((again.answer as { body: Record<string, unknown> }).body.choices, [
      { message: { content: 'four' } },
    ])
    const other = await step.onRequest(
      makeRequestContext(ask('what is 2+2', { temperature: 0 }), { call: { agentId: 'someone-else' } }),
    )
    assert.equal(other.kind, 'continue')
    // Not deterministic: not replayed under the default setting.
    const warm = await step.onRequest(makeRequestContext(ask('what is 2+2', { temperature: 0.7 })))
    assert.equal(warm.kind, 'continue')
  })

  it('coalesces identical requests in flight: one leads, the others get its answer', async () => {
    const flights = new MemoryFlights()
    const a = new DedupeStep(defaults, makeServices('dedupe', { flights }))
    const b = new DedupeStep(defaults, makeServices('dedupe', { flights }) as StepServices)
    const leaderState = new Map<string, unknown>()
    const lead = await a.onRequest(makeRequestContext(ask('summarise'), { state: leaderState }))
    assert.equal(lead.kind, 'continue')
    const follower = b.onRequest(makeRequestContext(ask('summarise')))
    await new Promise((resolve) => setTimeout(resolve, 20))
    await a.onUpstreamOutcome({ ...answered(ask('summarise'), 'a summary'), state: leaderState })
    const verdict = await follower
    assert.equal(verdict.kind, 'respond')
    if (verdict.kind === 'respond') assert.equal(verdict.headers?.[DEDUPE_HEADER], 'coalesced')
  })

  it('lets followers go upstream themselves when the leader fails', async () => {
    const flights = new MemoryFlights()
    const step = new DedupeStep(defaults, makeServices('dedupe', { flights }))
    const leaderState = new Map<string, unknown>()
    await step.onRequest(makeRequestContext(ask('flaky'), { state: leaderState }))
    const follower = step.onRequest(makeRequestContext(ask('flaky')))
    await new Promise((resolve) => setTimeout(resolve, 20))
    await step.onUpstreamOutcome(
      makeOutcomeContext(
        ask('flaky'),
        { kind: 'failure', reason: 'timeout', durationMs: 5 },
        { state: leaderState },
      ),
    )
    assert.equal((await follower).kind, 'continue')
  })

  it('does not serialise an answer that no follower waits for and that is not kept for replay', async () => {
    const flights = new MemoryFlights()
    const step = new DedupeStep(defaults, makeServices('dedupe', { flights }))
    /** An outcome whose answer body counts how often it is written as JSON. */
    const counted = (text: string, state: Map<string, unknown>) => {
      const outcome = answered(ask(text), 'an answer')
      let written = 0
      Object.assign(outcome.outcome.kind === 'success' ? outcome.outcome.answer.body : {}, {
        toJSON() {
          written++
          return { text: 'an answer' }
        },
      })
      return { ctx: { ...outcome, state }, written: () => written }
    }
    const alone = new Map<string, unknown>()
    await step.onRequest(makeRequestContext(ask('alone'), { state: alone }))
    const first = counted('alone', alone)
    await step.onUpstreamOutcome(first.ctx)
    assert.equal(first.written(), 0, 'no follower, not deterministic: nobody reads it')
    assert.equal((await flights.join(requestKeyOf('alone'), 1000)).role, 'leader', 'the flight ended')

    const kept = new Map<string, unknown>()
    await step.onRequest(makeRequestContext(ask('kept', { temperature: 0 }), { state: kept }))
    const second = counted('kept', kept)
    await step.onUpstreamOutcome(second.ctx)
    assert.equal(second.written(), 1, 'a deterministic answer is kept for replay')

    const awaited = new Map<string, unknown>()
    await step.onRequest(makeRequestContext(ask('awaited'), { state: awaited }))
    const waiting = step.onRequest(makeRequestContext(ask('awaited')))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const third = counted('awaited', awaited)
    await step.onUpstreamOutcome(third.ctx)
    assert.equal(third.written(), 1, 'a follower waits for it')
    assert.equal((await waiting).kind, 'respond')
  })

  it('does nothing with coalescing and replay off', async () => {
    const step = new DedupeStep({ ...defaults, coalesce: false, replay: 'off' }, makeServices('dedupe'))
    const ctx = makeRequestContext(ask('x', { temperature: 0 }))
    assert.equal((await step.onRequest(ctx)).kind, 'continue')
    assert.equal(ctx.state.size, 0)
  })
})
