import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CORE_VERSION, JSON_CODEC, maxLevel, TextPart, Verdicts } from '../src/index.js'
import { MemoryKeyValueStore, makeExchange } from '../src/testing.js'

describe('@gov/core', () => {
  it('orders classification levels', () => {
    assert.equal(maxLevel('public', 'confidential'), 'confidential')
    assert.equal(maxLevel('restricted', 'internal'), 'restricted')
  })

  it('writes text edits through to the vendor body', () => {
    const body = { messages: [{ role: 'user', content: 'mail bob@example.com', extra: 1 }] }
    const part = new TextPart({
      id: 'messages[0].content',
      messageIndex: 0,
      source: 'user',
      kind: 'text',
      holder: body.messages[0],
      key: 'content',
    })
    assert.equal(part.edited, false)
    part.text = 'mail <EMAIL_1>'
    assert.deepEqual(body, { messages: [{ role: 'user', content: 'mail <EMAIL_1>', extra: 1 }] })
    assert.equal(part.edited, true)
  })

  it('keeps JSON values JSON when a codec is used', () => {
    const block = { type: 'tool_use', input: { to: 'bob@example.com' } }
    const part = new TextPart({
      id: 'x',
      messageIndex: 0,
      source: 'assistant',
      kind: 'tool_arguments',
      holder: block,
      key: 'input',
      codec: JSON_CODEC,
    })
    part.text = part.text.replace('bob@example.com', '<EMAIL_1>')
    assert.deepEqual(block.input, { to: '<EMAIL_1>' })
  })

  it('builds verdicts', () => {
    assert.equal(Verdicts.continue().kind, 'continue')
    assert.deepEqual(Verdicts.block('x', 'why'), { kind: 'block', code: 'x', reason: 'why' })
    assert.deepEqual(Verdicts.respond({ text: 'hi' }), { kind: 'respond', answer: { text: 'hi' } })
    assert.match(CORE_VERSION, /^\d+\.\d+\.\d+/)
  })

  it('builds fake exchanges with tool results', () => {
    const ex = makeExchange([
      { source: 'user', text: 'hi' },
      { source: 'tool', toolResults: [{ toolCallId: 'c1', text: 'data' }] },
    ])
    assert.equal(ex.messages[1].parts[0].kind, 'tool_result')
    assert.equal(ex.messages[1].parts[0].source, 'tool')
  })

  it('expires memory kv entries', async () => {
    let now = 0
    const kv = new MemoryKeyValueStore(() => now)
    await kv.set('a', '1', 10)
    assert.equal(await kv.incr('n', 2), 2)
    now = 11
    assert.equal(await kv.get('a'), undefined)
    assert.equal(await kv.setIfAbsent('a', '2'), true)
    assert.equal(await kv.setIfAbsent('a', '3'), false)
  })
})
