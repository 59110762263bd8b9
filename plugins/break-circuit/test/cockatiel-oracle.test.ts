/**
 * The shared-store breaker against cockatiel's own in-process breaker as the
 * reference: the same seeded random sequences of successes, failures and clock
 * moves go through cockatiel's `ConsecutiveBreaker` + `halfOpenAfter` policy and
 * through break_circuit, and every call must be admitted or refused alike.
 */
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import type { UpstreamOutcome } from '@gov/core'
import {
  MemoryKeyValueStore,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
  seededRandom,
} from '@gov/core/testing'
import { BrokenCircuitError, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel'
import { BreakCircuitStep, resolveSettings } from '../src/index.js'

const FAILURE: UpstreamOutcome = { kind: 'failure', reason: 'status', status: 502, durationMs: 1 }
const SUCCESS: UpstreamOutcome = {
  kind: 'success',
  status: 200,
  answer: makeAnswer('ok'),
  usage: undefined,
  durationMs: 1,
}

describe('break_circuit agrees with cockatiel', () => {
  it('on 120 random sequences of 60 calls: same calls admitted, same refused', async () => {
    const clock = { t: 1_700_000_000_000 }
    const now = mock.method(Date, 'now', () => clock.t)
    try {
      for (let seed = 1; seed <= 120; seed++) {
        const rnd = seededRandom(seed)
        const threshold = 1 + Math.floor(rnd() * 4)
        const openS = 1 + Math.floor(rnd() * 4)
        const failureRate = 0.2 + rnd() * 0.7
        const reference = circuitBreaker(handleAll, {
          halfOpenAfter: openS * 1000,
          breaker: new ConsecutiveBreaker(threshold),
        })
        const kv = new MemoryKeyValueStore(() => clock.t)
        const step = new BreakCircuitStep(
          // cockatiel's consecutive breaker has no window: make ours longer than any sequence.
          resolveSettings({ failure_threshold: threshold, open_s: openS, window_s: 86_400 }),
          makeServices('break_circuit', { kv, now: () => clock.t }),
        )
        const exchange = makeExchange([{ source: 'user', text: 'hi' }], { model: `m-${seed}` })
        for (let i = 0; i < 60; i++) {
          clock.t += Math.floor(rnd() * 1500)
          const fails = rnd() < failureRate
          let expected: boolean
          try {
            await reference.execute(() => {
              if (fails) throw new Error('upstream failed')
            })
            expected = true
          } catch (err) {
            expected = !(err instanceof BrokenCircuitError)
          }
          const state = new Map<string, unknown>()
          const verdict = await step.onRequest(
            makeRequestContext(exchange, { state, call: { requestId: `r${i}` } }),
          )
          const admitted = verdict.kind === 'continue'
          if (admitted) {
            await step.onUpstreamOutcome(makeOutcomeContext(exchange, fails ? FAILURE : SUCCESS, { state }))
          }
          assert.equal(
            admitted,
            expected,
            `seed ${seed}, call ${i}: cockatiel ${expected ? 'admitted' : 'refused'} it`,
          )
        }
      }
    } finally {
      now.mock.restore()
    }
  })
})
