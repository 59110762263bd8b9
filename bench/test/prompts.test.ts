import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { chatBody } from '../src/chat-body.js'
import { buildPromptParts, distinctPrompts, promptText } from '../src/prompts.js'

describe('benchmark prompts', () => {
  const parts = buildPromptParts()

  it('are the same on every build', () => {
    const again = buildPromptParts()
    for (const n of [0, 1, 399, 400, 12_345, 99_999]) assert.equal(promptText(again, n), promptText(parts, n))
  })

  it('are about 1 KB each', () => {
    for (let n = 0; n < 2000; n += 37) {
      const size = Buffer.byteLength(promptText(parts, n))
      assert.ok(size > 800 && size < 1200, `prompt ${n} is ${size} bytes`)
    }
  })

  it('do not repeat before distinctPrompts requests', () => {
    const seen = new Set<string>()
    const count = 30_000
    assert.ok(distinctPrompts(parts) > count)
    for (let n = 0; n < count; n++) seen.add(promptText(parts, n))
    assert.equal(seen.size, count)
  })

  it('make valid chat completion bodies', () => {
    const body = JSON.parse(chatBody(parts, 5)) as {
      messages: { role: string; content: string }[]
      stream: boolean
    }
    assert.equal(body.stream, false)
    assert.deepEqual(
      body.messages.map((m) => m.role),
      ['system', 'user'],
    )
    assert.equal(body.messages[1]!.content, promptText(parts, 5))
  })
})
