import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin from '../src/index.js'

describe('keyword_guard', () => {
  it('blocks user text that mentions a keyword and reports where', async () => {
    const step = await plugin.create(
      { keywords: ['Merger'], action: 'block', reply: '' },
      makeServices('keyword_guard'),
    )
    const ctx = makeRequestContext(
      makeExchange([
        { source: 'system', text: 'merger talk is fine here' },
        { source: 'user', text: 'tell me about the MERGER' },
      ]),
    )
    const verdict = await step.onRequest?.(ctx)
    assert.equal(verdict?.kind, 'block')
    assert.deepEqual(
      ctx.findings.map((f) => [f.type, f.messageIndex, f.span?.start]),
      [['keyword', 1, 18]],
    )
  })

  it('answers by itself with action respond, and lets other text through', async () => {
    const step = await plugin.create(
      { keywords: ['weather'], action: 'respond', reply: 'no forecasts' },
      makeServices(),
    )
    assert.deepEqual(
      await step.onRequest?.(makeRequestContext(makeExchange([{ source: 'user', text: 'weather?' }]))),
      {
        kind: 'respond',
        answer: { text: 'no forecasts' },
      },
    )
    assert.equal(
      (await step.onRequest?.(makeRequestContext(makeExchange([{ source: 'user', text: 'hello' }]))))?.kind,
      'continue',
    )
  })
})
