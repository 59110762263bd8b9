import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type MockProvider, startMockProvider } from '@gov/host/testing'
import { type BareProxy, startBareProxy } from '../src/bare-proxy.js'
import { chatBody } from '../src/chat-body.js'
import { buildPromptParts, promptText } from '../src/prompts.js'

describe('bare proxy', () => {
  let mock: MockProvider
  let proxy: BareProxy
  before(async () => {
    mock = await startMockProvider({ recordRequests: false })
    proxy = await startBareProxy(mock.url)
  })
  after(async () => {
    await proxy?.close()
    await mock?.close()
  })

  it('forwards the body and pipes the answer back', async () => {
    const parts = buildPromptParts(10)
    const res = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: chatBody(parts, 3),
    })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /json/)
    const body = (await res.json()) as { choices: { message: { content: string } }[] }
    assert.equal(body.choices[0]!.message.content, promptText(parts, 3))
  })

  it('passes upstream errors through', async () => {
    const res = await fetch(`${proxy.url}/v1/nothing-here`, { method: 'POST', body: '{}' })
    assert.equal(res.status, 404)
  })
})
