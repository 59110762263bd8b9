import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { tokenUsage } from '../../src/adapters/json-values.js'
import { parseOpenAiAnswer } from '../../src/adapters/openai-answer.js'
import { parseOpenAiRequest } from '../../src/adapters/openai-request.js'

describe('tokenUsage', () => {
  it('keeps a field only when the provider reported a number', () => {
    assert.deepEqual(tokenUsage(3, 4), { inputTokens: 3, outputTokens: 4 })
    assert.deepEqual(tokenUsage(0, undefined), { inputTokens: 0 })
    assert.deepEqual(tokenUsage('3', 4), { outputTokens: 4 })
    const none = tokenUsage(null, '4')
    assert.deepEqual(none, {})
    assert.ok(!('inputTokens' in none) && !('outputTokens' in none))
  })

  it('is what an OpenAI answer reports, and nothing when usage is not an object', () => {
    const exchange = parseOpenAiRequest({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    const answer = (usage: unknown) =>
      parseOpenAiAnswer(
        { model: 'gpt-4o-mini', choices: [{ message: { role: 'assistant', content: 'ok' } }], usage },
        exchange as never,
      ).usage
    assert.deepEqual(answer({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }), {
      inputTokens: 5,
      outputTokens: 2,
    })
    assert.deepEqual(answer({ prompt_tokens: 5 }), { inputTokens: 5 })
    assert.equal(answer(undefined), undefined)
  })
})
