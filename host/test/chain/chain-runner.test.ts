import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Answer, CallInfo, Exchange, HookContext, StepInstance, ToolCall } from '@gov/core'
import { Verdicts } from '@gov/core'
import type { Chain } from '../../src/chain/chain.js'
import { CallState, ChainRunner } from '../../src/chain/chain-runner.js'
import { GovMetrics } from '../../src/metrics/metrics.js'

const call = (mode: 'enforce' | 'observe' = 'enforce') =>
  ({
    requestId: 'r1',
    agentId: 'agent',
    sessionId: undefined,
    pipelineId: 'p',
    pipelineVersion: 1,
    mode,
    flags: new Map(),
  }) as unknown as CallInfo
const exchange = { model: 'gpt-4o-mini' } as unknown as Exchange

function chainOf(
  steps: Record<string, StepInstance>,
  onError: 'fail_closed' | 'fail_open' = 'fail_closed',
): Chain {
  return {
    steps: Object.entries(steps).map(([name, instance]) => ({ name, instance, onError, settings: {} })),
  } as unknown as Chain
}

function stepCount(metrics: GovMetrics, step: string, phase: string): number {
  return metrics.stepDuration.child(step, phase).count
}

const successOutcome = { kind: 'success', status: 200, answer: {}, usage: undefined, durationMs: 1 } as const

describe('ChainRunner', () => {
  it('gives request hooks a context without answer or toolCall keys, and makes step state only on first use', async () => {
    const metrics = new GovMetrics()
    const runner = new ChainRunner(metrics)
    const seen: HookContext[] = []
    const chain = chainOf({
      reader: {
        onRequest(ctx) {
          seen.push(ctx)
          ctx.state.set('k', 1)
          return Verdicts.continue()
        },
      },
      ignorer: {
        onRequest(ctx) {
          seen.push(ctx)
          return Verdicts.continue()
        },
      },
    })
    const state = new CallState()
    let made = 0
    const stateOf = state.stateOf.bind(state)
    state.stateOf = (step: string) => {
      made++
      return stateOf(step)
    }
    assert.equal((await runner.run(chain, 'request', call(), exchange, state)).kind, 'continue')
    assert.equal(made, 1, 'only the step that read its state asked for it')
    for (const ctx of seen) {
      assert.deepEqual(Object.keys(ctx), ['phase', 'call', 'exchange', 'findings', 'report', 'grantLabels'])
      // A getter of the context's class (not an accessor defined on every context: a runtime call each).
      assert.ok('state' in ctx && !Object.hasOwn(ctx, 'state'))
      assert.ok(!('answer' in ctx) && !('toolCall' in ctx))
      assert.equal(ctx.phase, 'request')
    }
    // The same map across phases and reads.
    assert.equal(seen[0]?.state, stateOf('reader'))
    assert.equal(stateOf('reader').get('k'), 1)
    assert.deepEqual([...state.stepsRun], ['reader', 'ignorer'])
    assert.deepEqual(
      state.decisions.map((d) => Object.keys(d)),
      [
        ['step', 'phase', 'verdict', 'durationMs', 'enforced'],
        ['step', 'phase', 'verdict', 'durationMs', 'enforced'],
      ],
    )
    assert.equal(stepCount(metrics, 'reader', 'request'), 1)
    assert.equal(stepCount(metrics, 'ignorer', 'request'), 1)
    await runner.run(chain, 'request', call(), exchange, new CallState())
    assert.equal(stepCount(metrics, 'reader', 'request'), 2, 'the cached timer is the metric child')
  })

  it('reports findings with step and phase, and grants labels, from every phase', async () => {
    const runner = new ChainRunner(new GovMetrics())
    const toolCall = { id: 't1', name: 'f', arguments: '{}' } as unknown as ToolCall
    const answer = { message: { toolCalls: [toolCall] } } as unknown as Answer
    const hook = (ctx: HookContext) => {
      ctx.report({ type: `seen_${ctx.phase}`, level: 'info' } as never)
      ctx.grantLabels([ctx.phase])
      return Verdicts.continue()
    }
    const chain = chainOf({
      s: {
        onRequest: hook,
        onBufferedResponse: hook,
        onToolCall: hook,
        onUpstreamOutcome(ctx) {
          hook(ctx)
          assert.deepEqual(Object.keys(ctx), [
            'phase',
            'call',
            'exchange',
            'findings',
            'report',
            'grantLabels',
            'provider',
            'outcome',
          ])
          assert.equal(ctx.provider, 'openai')
          assert.equal(ctx.outcome, successOutcome)
        },
      },
    })
    const state = new CallState()
    await runner.run(chain, 'request', call(), exchange, state)
    await runner.outcome(chain, call(), exchange, state, 'openai', successOutcome as never)
    await runner.run(chain, 'response', call(), exchange, state, answer)
    await runner.run(chain, 'tool_call', call(), exchange, state, answer)
    assert.deepEqual(
      state.findings.map((f) => [f.type, f.step, f.phase]),
      [
        ['seen_request', 's', 'request'],
        ['seen_upstream', 's', 'upstream'],
        ['seen_response', 's', 'response'],
        ['seen_tool_call', 's', 'tool_call'],
      ],
    )
    assert.deepEqual([...state.labels], ['request', 'upstream', 'response', 'tool_call'])
    assert.deepEqual(
      state.decisions.map((d) => d.phase),
      ['request', 'upstream', 'response', 'tool_call'],
    )
  })

  it('gives response and tool-call hooks their answer and tool call, and skips tool calls removed by an earlier step', async () => {
    const runner = new ChainRunner(new GovMetrics())
    const a = { id: 'a' } as unknown as ToolCall
    const b = { id: 'b' } as unknown as ToolCall
    const answer = { message: { toolCalls: [a, b] } } as unknown as Answer
    const seen: string[] = []
    const chain = chainOf({
      remover: {
        onBufferedResponse(ctx) {
          assert.deepEqual(Object.keys(ctx).slice(-1), ['answer'])
          assert.equal(ctx.answer, answer)
          return Verdicts.continue()
        },
        onToolCall(ctx) {
          seen.push(`remover:${(ctx.toolCall as unknown as { id: string }).id}`)
          assert.deepEqual(Object.keys(ctx).slice(-2), ['answer', 'toolCall'])
          // Drop b from the answer while a is being looked at.
          if (ctx.toolCall === a) (answer.message.toolCalls as ToolCall[]).splice(1, 1)
          return Verdicts.continue()
        },
      },
      later: {
        async onToolCall(ctx) {
          seen.push(`later:${(ctx.toolCall as unknown as { id: string }).id}`)
          return Verdicts.continue()
        },
      },
    })
    await runner.run(chain, 'response', call(), exchange, new CallState(), answer)
    await runner.run(chain, 'tool_call', call(), exchange, new CallState(), answer)
    // remover's own loop kept its copy of the list (b was listed when it began); later never sees b.
    assert.deepEqual(seen, ['remover:a', 'later:a'])
  })

  it('settles sync and async hooks alike: verdicts, throws, rejections, non-verdicts', async () => {
    const metrics = new GovMetrics()
    const runner = new ChainRunner(metrics)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const cases: [string, StepInstance['onRequest'], string | undefined][] = [
      [
        'sync-throw',
        () => {
          throw new Error('boom')
        },
        'boom',
      ],
      [
        'async-reject',
        async () => {
          throw new Error('late boom')
        },
        'late boom',
      ],
      [
        'throw-undefined',
        () => {
          throw undefined
        },
        'undefined',
      ],
      ['reject-undefined', () => Promise.reject(undefined), 'undefined'],
      ['reject-string', () => Promise.reject('nope'), 'nope'],
      [
        'not-a-verdict',
        () => ({ kind: 'maybe' }) as never,
        'onRequest returned {"kind":"maybe"} instead of a verdict',
      ],
      [
        'async-undefined',
        async () => undefined as never,
        'onRequest returned undefined instead of a verdict',
      ],
      ['cyclic', () => cyclic as never, undefined],
      ['bigint', () => 1n as never, 'Do not know how to serialize a BigInt'],
    ]
    for (const [name, onRequest, message] of cases) {
      for (const onError of ['fail_closed', 'fail_open'] as const) {
        const state = new CallState()
        const verdict = await runner.run(
          chainOf({ [name]: { onRequest } }, onError),
          'request',
          call(),
          exchange,
          state,
        )
        const decision = state.decisions[0]
        assert.ok(decision, name)
        assert.ok(decision.error, `${name}: an error is recorded`)
        if (message) assert.equal(decision.error, message, name)
        else assert.match(decision.error, /circular/i, name)
        if (onError === 'fail_open') {
          assert.equal(verdict.kind, 'continue', name)
          assert.deepEqual(Object.keys(decision), [
            'step',
            'phase',
            'verdict',
            'durationMs',
            'enforced',
            'error',
          ])
        } else {
          assert.equal(verdict.kind, 'block', name)
          assert.equal(verdict.kind === 'block' && verdict.code, 'GOV_ERR_STEP_FAILED')
          assert.deepEqual(Object.keys(decision), [
            'step',
            'phase',
            'verdict',
            'code',
            'durationMs',
            'enforced',
            'error',
          ])
        }
      }
    }
    assert.equal(stepCount(metrics, 'sync-throw', 'request'), 2)
  })

  it('stops at the first enforced verdict; observe mode records blocks as not enforced and goes on', async () => {
    const metrics = new GovMetrics()
    const runner = new ChainRunner(metrics)
    const ran: string[] = []
    const chain = chainOf({
      first: {
        async onRequest() {
          ran.push('first')
          return Verdicts.block('nope_code', 'no', 403)
        },
      },
      second: {
        onRequest() {
          ran.push('second')
          return Verdicts.continue()
        },
      },
    })
    const enforced = new CallState()
    const verdict = await runner.run(chain, 'request', call(), exchange, enforced)
    assert.equal(verdict.kind, 'block')
    assert.deepEqual(ran, ['first'])
    assert.deepEqual(Object.keys(enforced.decisions[0] ?? {}), [
      'step',
      'phase',
      'verdict',
      'code',
      'durationMs',
      'enforced',
    ])
    assert.equal(enforced.decisions[0]?.enforced, true)

    ran.length = 0
    const observed = new CallState()
    assert.equal((await runner.run(chain, 'request', call('observe'), exchange, observed)).kind, 'continue')
    assert.deepEqual(ran, ['first', 'second'])
    assert.equal(observed.decisions[0]?.enforced, false)
    assert.equal(observed.decisions[0]?.code, 'nope_code')
    assert.equal(observed.decisions[1]?.enforced, true)
  })

  it('records an outcome hook that throws and goes on to the next one', async () => {
    const metrics = new GovMetrics()
    const runner = new ChainRunner(metrics)
    const ran: string[] = []
    const chain = chainOf({
      thrower: {
        async onUpstreamOutcome() {
          ran.push('thrower')
          throw new Error('ledger down')
        },
      },
      none: {},
      quiet: {
        onUpstreamOutcome() {
          ran.push('quiet')
        },
      },
    })
    const state = new CallState()
    await runner.outcome(chain, call(), exchange, state, 'openai', successOutcome as never)
    assert.deepEqual(ran, ['thrower', 'quiet'])
    assert.deepEqual(
      state.decisions.map((d) => [d.step, d.phase, d.verdict, d.enforced, d.error]),
      [
        ['thrower', 'upstream', 'continue', true, 'ledger down'],
        ['quiet', 'upstream', 'continue', true, undefined],
      ],
    )
    assert.deepEqual(Object.keys(state.decisions[1] ?? {}), [
      'step',
      'phase',
      'verdict',
      'durationMs',
      'enforced',
    ])
    assert.equal(stepCount(metrics, 'thrower', 'upstream'), 1)
    assert.equal(stepCount(metrics, 'quiet', 'upstream'), 1)
    assert.deepEqual([...state.stepsRun], [], 'outcome hooks do not count as steps run')
  })
})
