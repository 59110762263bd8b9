/**
 * `requestUnchanged`: whether the host may send the caller's own bytes in
 * enforce mode. Anything that can change the body — a text part edited (tool
 * arguments and tool results included), a tool narrowed away, the writable
 * `body` taken — makes it false; reading `bodyView` and the parts does not.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Exchange } from '@gov/core'
import { makeExchange } from '@gov/core/testing'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { requestUnchanged } from '../../src/adapters/tool-ops.js'

const openai = new OpenAiAdapter()

function body(): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Mail Bob the report.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'send_mail', arguments: '{"to":"bob"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sent' },
    ],
    tools: [
      { type: 'function', function: { name: 'send_mail', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } },
    ],
  }
}

describe('requestUnchanged', () => {
  it('is true after parsing, reading every text, the tools and bodyView', () => {
    const exchange = openai.parseRequest(body())
    let chars = 0
    for (const m of exchange.messages) for (const p of m.parts) chars += p.text.length
    assert.ok(chars > 0)
    assert.equal(exchange.tools.length, 2)
    assert.equal(exchange.bodyView?.model, 'gpt-4o-mini')
    // Setting a text to what it already is changes nothing.
    const user = exchange.messages[1]?.parts[0]
    if (user) user.text = 'Mail Bob the report.'
    assert.deepEqual(
      exchange.narrowTools(() => true),
      [],
    )
    assert.equal(requestUnchanged(exchange), true)
  })

  it('is false once a text part, a tool argument or a tool result is edited', () => {
    const edits: ((e: Exchange) => void)[] = [
      (e) => {
        ;(e.messages[1]?.parts[0] as { text: string }).text = 'Mail [NAME] the report.'
      },
      (e) => {
        ;(e.messages[2]?.toolCalls[0]?.arguments as { text: string }).text = '{"to":"[NAME]"}'
      },
      (e) => {
        ;(e.messages[3]?.parts[0] as { text: string }).text = 'redacted'
      },
    ]
    for (const edit of edits) {
      const exchange = openai.parseRequest(body())
      edit(exchange)
      assert.equal(requestUnchanged(exchange), false)
    }
  })

  it('is false once a tool is narrowed away or the writable body is taken', () => {
    const narrowed = openai.parseRequest(body())
    assert.deepEqual(
      narrowed.narrowTools((t) => t.name !== 'send_mail'),
      ['send_mail'],
    )
    assert.equal(requestUnchanged(narrowed), false)
    const taken = openai.parseRequest(body())
    assert.equal(taken.body.model, 'gpt-4o-mini')
    assert.equal(requestUnchanged(taken), false)
  })

  it('holds for the other adapters and is false for an Exchange the host did not build', () => {
    const anthropic = new AnthropicAdapter().parseRequest({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    })
    assert.equal(requestUnchanged(anthropic), true)
    assert.equal(requestUnchanged(makeExchange([{ source: 'user', text: 'hi' }])), false)
  })
})
