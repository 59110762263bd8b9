import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { makeStep } from './helpers.js'

const BENIGN = [
  'What is the capital of Norway?',
  'SELECT * FROM Products ORDER BY Id DESC',
  'Is Golang a good choice for serving LLMs?',
  'How do I write a DAX measure for year-over-year growth?',
  'Our slide says Clarity Over Jargon. Make it punchier.',
  'Compare sales in Germany, Deutschland as the Germans say, and Ukraine.',
]

describe('strict and standard on prompts without personal data', () => {
  it('action block (strict) refuses none of them and action mask (standard) changes none', async () => {
    const { step: strict } = await makeStep({ action: 'block' })
    const { step: standard } = await makeStep({ action: 'mask' })
    for (const text of BENIGN) {
      assert.equal(
        (await strict.onRequest(makeRequestContext(makeExchange([{ source: 'user', text }])))).kind,
        'continue',
        text,
      )
      const exchange = makeExchange([{ source: 'user', text }])
      await standard.onRequest(makeRequestContext(exchange))
      assert.equal(exchange.messages[0].parts[0].text, text)
    }
  })

  it('strict still refuses a prompt with personal data', async () => {
    const { step } = await makeStep({ action: 'block' })
    const verdict = await step.onRequest(
      makeRequestContext(
        makeExchange([{ source: 'user', text: 'My name is Anna Berg and I live in Tromsø.' }]),
      ),
    )
    assert.equal(verdict.kind, 'block')
  })
})
