/**
 * The provider's request id reaches the caller: `x-gov-provider-request-id`
 * on every endpoint (JSON, held and windowed streams, provider errors), and
 * Anthropic's own `request-id` on /v1/messages; gov's `x-request-id` stays
 * gov's. Rate-limit headers are not passed on, and a malformed id is dropped.
 */
import assert from 'node:assert/strict'
import { type IncomingHttpHeaders, request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { openAiEchoSse } from '../../src/testing/mock-echo.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, messagesBody, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ID = 'x-gov-provider-request-id'

function responsesBody(text: string, extra: Record<string, unknown> = {}) {
  return { model: 'gpt-4o-mini', input: text, ...extra }
}

async function post(t: TestGateway, path: string, body: unknown, key: string) {
  const res = await fetch(t.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

describe('the provider request id through the gateway', () => {
  let t: TestGateway
  let key: string
  let windowedKey: string
  let mock: MockProvider

  before(async () => {
    mock = await startMockProvider({ requestIds: true })
    t = await startTestGateway({ plugins: [], mock })
    key = await t.createAgent('reqid-agent')
    const res = await t.admin('POST', '/pipelines', {
      pipeline_id: 'reqid-windowed',
      preset: 'standard',
      content: { stream_release: 'windowed', stream_window_chars: 16, stream_hold_chars: 8 },
    })
    assert.equal(res.status, 201, res.text)
    windowedKey = await t.createAgent('reqid-windowed-agent', 'reqid-windowed')
  })
  after(async () => {
    await t.close()
    await mock.close()
  })

  const cases = [
    { name: 'chat completions', path: '/v1/chat/completions', body: chatBody, anthropic: false },
    { name: 'messages', path: '/v1/messages', body: messagesBody, anthropic: true },
    { name: 'responses', path: '/v1/responses', body: responsesBody, anthropic: false },
  ] as const

  for (const c of cases) {
    for (const stream of [false, true]) {
      it(`${c.name}${stream ? ' streamed' : ''}: the answer carries the provider's id, x-request-id stays gov's`, async () => {
        const res = await post(t, c.path, c.body('hello there', stream ? { stream: true } : {}), key)
        assert.equal(res.status, 200, res.text)
        const sent = t.mock.requests.at(-1)?.requestId
        assert.match(sent ?? '', /^req_mock_\d+$/)
        assert.equal(res.headers.get(ID), sent)
        assert.equal(res.headers.get('request-id'), c.anthropic ? sent : null)
        assert.match(res.headers.get('x-request-id') ?? '', UUID)
        if (stream) assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/)
      })
    }

    it(`${c.name}: a windowed stream has the id in its headers (set before the first byte)`, async () => {
      const res = await post(
        t,
        c.path,
        c.body('a windowed answer long enough for windows', { stream: true }),
        windowedKey,
      )
      assert.equal(res.status, 200, res.text)
      assert.match(res.text, /windowed/)
      assert.equal(res.headers.get(ID), t.mock.requests.at(-1)?.requestId)
    })
  }

  it('a provider error passes the id on, but not the rate-limit headers (OpenAI)', async () => {
    t.mock.enqueue({
      status: 429,
      json: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      headers: {
        'x-request-id': 'req_429_openai',
        'retry-after': '1',
        'x-ratelimit-remaining-requests': '17',
        'x-ratelimit-limit-tokens': '30000',
      },
    })
    const res = await post(t, '/v1/chat/completions', chatBody('hi'), key)
    assert.equal(res.status, 429)
    assert.equal(res.headers.get(ID), 'req_429_openai')
    assert.equal(res.headers.get('request-id'), null)
    assert.match(res.headers.get('x-request-id') ?? '', UUID)
    assert.equal(res.headers.get('retry-after'), '1')
    assert.equal(res.headers.get('x-ratelimit-remaining-requests'), null)
    assert.equal(res.headers.get('x-ratelimit-limit-tokens'), null)
  })

  it('a provider error passes the id on, but not the rate-limit headers (Anthropic)', async () => {
    t.mock.enqueue({
      status: 529,
      json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      headers: { 'request-id': 'req_011CAnthropic', 'anthropic-ratelimit-requests-remaining': '3' },
    })
    const res = await post(t, '/v1/messages', messagesBody('hi'), key)
    assert.equal(res.status, 529)
    assert.equal(res.headers.get('request-id'), 'req_011CAnthropic')
    assert.equal(res.headers.get(ID), 'req_011CAnthropic')
    assert.equal(res.headers.get('anthropic-ratelimit-requests-remaining'), null)
  })

  it("the audit record of a call keeps the provider's id (null when the provider sent none)", async () => {
    const auditOf = async (requestId: string | null) => {
      const res = await t.admin('GET', '/audit?kind=call&order=desc&limit=50')
      assert.equal(res.status, 200, res.text)
      const record = (res.body.records as { request_id: string; detail: Record<string, unknown> }[]).find(
        (r) => r.request_id === requestId,
      )
      assert.ok(record, `an audit record for ${requestId}`)
      return record.detail
    }
    const ok = await post(t, '/v1/messages', messagesBody('hello audit'), key)
    assert.equal(ok.status, 200, ok.text)
    assert.match(ok.headers.get(ID) ?? '', /^req_mock_\d+$/)
    assert.equal((await auditOf(ok.headers.get('x-request-id'))).provider_request_id, ok.headers.get(ID))
    t.mock.enqueue({
      status: 500,
      json: { error: { message: 'boom', type: 'server_error', param: null, code: null } },
      headers: { 'x-request-id': 'req_500_audited' },
    })
    const failed = await post(t, '/v1/chat/completions', chatBody('hi'), key)
    assert.equal(failed.status, 500)
    assert.equal((await auditOf(failed.headers.get('x-request-id'))).provider_request_id, 'req_500_audited')
    // Refused before any provider was called: no provider id.
    const refused = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model":"gpt-4o-mini","messages":"not a list"}',
    })
    assert.equal(refused.status, 400)
    await refused.text()
    assert.equal((await auditOf(refused.headers.get('x-request-id'))).provider_request_id, null)
  })

  it('rate-limit headers of a successful answer are not passed on either', async () => {
    t.mock.enqueue({
      json: {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      headers: { 'anthropic-ratelimit-tokens-remaining': '99', 'x-ratelimit-remaining-tokens': '5' },
    })
    const res = await post(t, '/v1/messages', messagesBody('hi'), key)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.headers.get('request-id'))
    assert.equal(res.headers.get('anthropic-ratelimit-tokens-remaining'), null)
    assert.equal(res.headers.get('x-ratelimit-remaining-tokens'), null)
  })

  for (const [what, value] of [
    ['longer than 200 characters', `req_${'x'.repeat(197)}`],
    ['not ASCII', 'req_caf\u00e9'],
  ] as const) {
    it(`an id ${what} is not passed on`, async () => {
      t.mock.enqueue({
        status: 500,
        json: { error: { message: 'boom', type: 'server_error', param: null, code: null } },
        headers: { 'x-request-id': value },
      })
      const res = await post(t, '/v1/chat/completions', chatBody('hi'), key)
      assert.equal(res.status, 500)
      assert.equal(res.headers.get(ID), null)
      assert.match(res.headers.get('x-request-id') ?? '', UUID)
    })
  }

  it('an id of exactly 200 printable characters is passed on', async () => {
    const value = `req ${'~'.repeat(196)}`
    t.mock.enqueue({
      status: 500,
      json: { error: { message: 'boom', type: 'server_error', param: null, code: null } },
      headers: { 'x-request-id': value },
    })
    const res = await post(t, '/v1/chat/completions', chatBody('hi'), key)
    assert.equal(res.headers.get(ID), value)
  })
})

describe('the provider request id of a stream opened by keep-alives before the provider answered', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway({ plugins: [], env: { GOV_STREAM_KEEPALIVE_MS: '40' } })
    key = await t.createAgent('reqid-keepalive')
  })
  after(() => t.close())

  it('comes as a trailer', async () => {
    const sse = openAiEchoSse(
      { model: 'gpt-4o-mini', text: 'late answer', tool: false, requestChars: 10 },
      false,
    )
    t.mock.enqueue({ delayMs: 300, sse, headers: { 'x-request-id': 'req_late_1' } })
    const res = await new Promise<{
      headers: IncomingHttpHeaders
      text: string
      trailers: NodeJS.Dict<string>
    }>((resolve, reject) => {
      const req = request(`${t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
      req.on('response', (r) => {
        let text = ''
        r.setEncoding('utf8')
        r.on('data', (c) => {
          text += c
        })
        r.on('end', () => resolve({ headers: r.headers, text, trailers: r.trailers }))
      })
      req.on('error', reject)
      req.end(JSON.stringify(chatBody('hi', { stream: true })))
    })
    assert.ok(
      res.text.indexOf(': keep-alive') >= 0 && res.text.indexOf(': keep-alive') < res.text.indexOf('data:'),
    )
    assert.match(res.text, /late answer/)
    assert.equal(res.headers[ID], undefined)
    assert.equal(res.trailers[ID], 'req_late_1')
  })
})
