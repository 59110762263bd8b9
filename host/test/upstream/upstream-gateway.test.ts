import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { chatBody, messagesBody, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import { DEFAULT_MAX_ANSWER_BYTES } from '../../src/upstream/upstream-client.js'

describe('upstream deadline and answer cap through the gateway', () => {
  let trickler: Server
  let t: TestGateway
  let key: string

  before(async () => {
    // Answers both vendor paths with one SSE comment a tenth of a second, for 6 s.
    trickler = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      let sent = 0
      const timer = setInterval(() => {
        if (sent++ >= 60) {
          clearInterval(timer)
          res.end()
        } else res.write(': tick\n\n')
      }, 100)
      res.on('close', () => clearInterval(timer))
    })
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve))
    const port = (trickler.address() as AddressInfo).port
    t = await startTestGateway({
      env: {
        GOV_UPSTREAM_TIMEOUT_MS: '500',
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      },
    })
    key = await t.createAgent('agent-deadline')
  })
  after(async () => {
    await t.close()
    trickler.closeAllConnections()
    await new Promise((resolve) => trickler.close(resolve))
  })

  it('a trickling provider gets 504 upstream_timeout at the deadline (OpenAI format)', async () => {
    const res = await t.call('/v1/chat/completions', chatBody('hi', { stream: true }), { key })
    assert.equal(res.status, 504)
    assert.equal(res.body.error.code, 'upstream_timeout')
  })

  it('a caller that hangs up stops the upstream call: the provider sees its request dropped', async () => {
    const providerClosed = new Promise<boolean>((resolve) =>
      trickler.once('request', (_req, res) => res.once('close', () => resolve(!res.writableFinished))),
    )
    const { request } = await import('node:http')
    const caller = request(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    })
    caller.on('error', () => {})
    caller.end(JSON.stringify(chatBody('hi', { stream: true })))
    // Give the call time to reach the provider, then hang up long before the 500 ms deadline.
    await new Promise((resolve) => setTimeout(resolve, 150))
    caller.destroy()
    assert.equal(await providerClosed, true)
  })

  it('a trickling provider gets 504 upstream_timeout at the deadline (Anthropic format)', async () => {
    const res = await t.call('/v1/messages', messagesBody('hi', { stream: true }), { key })
    assert.equal(res.status, 504)
    assert.equal(res.body.type, 'error')
    assert.equal(res.body.error.code, 'upstream_timeout')
  })
})

describe('an answer over the cap through the gateway', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway()
    key = await t.createAgent('agent-cap')
  })
  after(() => t.close())

  it('is cut off and answered 502 upstream_answer_too_large', async () => {
    t.mock.enqueue({ json: { padding: 'a'.repeat(DEFAULT_MAX_ANSWER_BYTES) } })
    const res = await t.call('/v1/chat/completions', chatBody('hi'), { key })
    assert.equal(res.status, 502)
    assert.equal(res.body.error.code, 'upstream_answer_too_large')
  })
})
