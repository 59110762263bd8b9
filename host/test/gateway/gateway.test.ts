import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { hookLog } from '../../src/testing/fixture-steps.js'
import {
  chatBody,
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'

const chat = chatBody
const messages = messagesBody

describe('gateway request walk', () => {
  let t: TestGateway
  let key: string

  before(async () => {
    t = await startTestGateway()
    await t.createPipeline(
      'fx',
      'standard',
      onlySteps('standard', {
        fx_pass: {},
        fx_block: {},
        fx_second: {},
        fx_respond: {},
        fx_edit: {},
        fx_throw: {},
      }),
    )
    key = await t.createAgent('agent-fx', 'fx')
  })
  after(() => t.close())
  beforeEach(() => {
    hookLog.length = 0
  })

  it('passes a chat completion through and adds the gov headers', async () => {
    const res = await t.call('/v1/chat/completions', chat('hello there'), { key })
    assert.equal(res.status, 200)
    assert.equal(res.body.object, 'chat.completion')
    assert.equal(res.body.choices[0].message.content, 'hello there')
    assert.equal(res.headers.get('x-gov-classification'), 'public')
    assert.equal(res.headers.get('x-gov-pipeline-steps'), '6')
    assert.match(res.headers.get('x-gov-token') ?? '', /^[\w-]+\.[\w-]+\.[\w-]+$/)
  })

  it('runs steps in pipeline order, request then response', async () => {
    await t.call('/v1/chat/completions', chat('order please'), { key })
    assert.deepEqual(
      hookLog.filter((h) => h.startsWith('fx_pass') || h.startsWith('fx_second')),
      ['fx_pass:request', 'fx_second:request', 'fx_pass:response', 'fx_second:response'],
    )
  })

  it('runs onToolCall once per tool call of the answer', async () => {
    const res = await t.call('/v1/chat/completions', chat('[mock:tool_echo] send hi'), { key })
    assert.equal(res.status, 200)
    assert.ok(hookLog.includes('fx_pass:tool_call:send_message'))
  })

  it('blocks with the step code in the OpenAI error format', async () => {
    const before = t.mock.requests.length
    const res = await t.call('/v1/chat/completions', chat('this is forbidden text'), { key })
    assert.equal(res.status, 403)
    assert.equal(res.body.error.code, 'fx_word_found')
    assert.equal(res.body.error.type, 'permission_error')
    assert.equal(res.headers.get('x-gov-classification'), 'confidential')
    assert.equal(t.mock.requests.length, before, 'a blocked call never reaches the provider')
  })

  it('blocks in the Anthropic error format on /v1/messages', async () => {
    const res = await t.call('/v1/messages', messages('forbidden'), { key })
    assert.equal(res.status, 403)
    assert.equal(res.body.type, 'error')
    assert.equal(res.body.error.type, 'permission_error')
  })

  it('answers a respond verdict without calling the provider', async () => {
    const before = t.mock.requests.length
    const res = await t.call('/v1/chat/completions', chat('give me the cached answer'), { key })
    assert.equal(res.status, 200)
    assert.equal(res.body.choices[0].message.content, 'from the gateway')
    assert.equal(t.mock.requests.length, before)
    const streamed = await t.call('/v1/messages', messages('cached please', { stream: true }), { key })
    assert.equal(streamed.status, 200)
    assert.match(streamed.text, /event: message_start/)
    assert.match(streamed.text, /from the gateway|from the/)
  })

  it('edits text in place upstream and restores it in the answer', async () => {
    const res = await t.call(
      '/v1/chat/completions',
      chat('my secret plan', { temperature: 0.2, user: 'u1', custom_field: { a: 1 } }),
      { key },
    )
    const sent = t.mock.requests.at(-1)?.body as Record<string, unknown> & { messages: { content: string }[] }
    assert.equal(sent.messages[0].content, 'my [HIDDEN] plan')
    assert.equal(sent.temperature, 0.2)
    assert.deepEqual(sent.custom_field, { a: 1 }, 'unknown fields pass upstream untouched')
    assert.equal(res.body.choices[0].message.content, 'my secret plan')
  })

  it('drops logprobs when a step edited the answer, and keeps them otherwise', async () => {
    const answer = (content: string) => ({
      id: 'chatcmpl-lp',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content },
          logprobs: { content: [{ token: content, logprob: -0.1, bytes: null, top_logprobs: [] }] },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    })
    t.mock.enqueue({ json: answer('a [HIDDEN] word') })
    const edited = await t.call('/v1/chat/completions', chat('hi', { logprobs: true }), { key })
    assert.equal(edited.body.choices[0].message.content, 'a secret word')
    assert.equal(edited.body.choices[0].logprobs, null)
    t.mock.enqueue({ json: answer('plain words') })
    const plain = await t.call('/v1/chat/completions', chat('hi', { logprobs: true }), { key })
    assert.equal(plain.body.choices[0].logprobs.content[0].token, 'plain words')
  })

  it('does the same for a streamed answer, re-chunked as SSE', async () => {
    const res = await t.call(
      '/v1/chat/completions',
      chat('stream my secret', { stream: true, stream_options: { include_usage: true } }),
      { key },
    )
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/)
    const chunks = res.text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
      .map((l) => JSON.parse(l.slice(6)))
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')
    assert.equal(text, 'stream my secret')
    assert.ok(chunks.at(-1).usage, 'include_usage adds a usage chunk')
    assert.ok(res.text.trimEnd().endsWith('data: [DONE]'))
    const sent = t.mock.requests.at(-1)?.body as { messages: { content: string }[] }
    assert.equal(sent.messages[0].content, 'stream my [HIDDEN]')
  })

  it('fails closed when a step throws, and fails open when told to', async () => {
    const res = await t.call('/v1/chat/completions', chat('boom'), { key })
    assert.equal(res.status, 500)
    assert.equal(res.body.error.code, 'GOV_ERR_STEP_FAILED')
    await t.createPipeline(
      'fx-open',
      'standard',
      onlySteps('standard', { fx_throw: { on_error: 'fail_open' }, fx_pass: {} }),
    )
    const openKey = await t.createAgent('agent-open', 'fx-open')
    const ok = await t.call('/v1/chat/completions', chat('boom'), { key: openKey })
    assert.equal(ok.status, 200)
    assert.equal(ok.headers.get('x-gov-pipeline-steps'), '2')
  })

  it('observe mode runs every step, records, and neither blocks nor edits', async () => {
    await t.createPipeline('fx-observe', 'observe', onlySteps('observe', { fx_block: {}, fx_edit: {} }))
    const obsKey = await t.createAgent('agent-observe', 'fx-observe')
    const res = await t.call('/v1/chat/completions', chat('forbidden secret'), { key: obsKey })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-gov-classification'), 'confidential', 'findings are still recorded')
    const sent = t.mock.requests.at(-1)?.body as { messages: { content: string }[] }
    assert.equal(sent.messages[0].content, 'forbidden secret', 'nothing changed upstream')
  })

  it('lets a flag tighten but not relax unless the pipeline allows it', async () => {
    await t.createPipeline(
      'fx-lenient',
      'standard',
      onlySteps('standard', { fx_block: { strictness: 'off' } }),
    )
    const lenientKey = await t.createAgent('agent-lenient', 'fx-lenient')
    const lenient = await t.call('/v1/chat/completions', chat('forbidden'), { key: lenientKey })
    assert.equal(lenient.status, 200, lenient.text)
    const tightened = await t.call('/v1/chat/completions', chat('forbidden'), {
      key: lenientKey,
      headers: { 'x-gov-flags': 'fx=on' },
    })
    assert.equal(tightened.status, 403)

    const relax = await t.call('/v1/chat/completions', chat('forbidden'), {
      key,
      headers: { 'x-gov-flags': 'mode=observe' },
    })
    assert.equal(relax.status, 403)
    assert.equal(relax.body.error.code, 'flag_not_allowed')

    await t.createPipeline('fx-relaxable', 'standard', onlySteps('standard', { fx_block: {} }), ['mode'])
    const relaxKey = await t.createAgent('agent-relax', 'fx-relaxable')
    const observed = await t.call('/v1/chat/completions', chat('forbidden'), {
      key: relaxKey,
      headers: { 'x-gov-flags': 'mode=observe' },
    })
    assert.equal(observed.status, 200)
    const enforced = await t.call('/v1/chat/completions', chat('forbidden'), {
      key: relaxKey,
      headers: { 'X-Gov-Flags': 'mode=enforce' },
    })
    assert.equal(enforced.status, 403)
  })

  it('rejects malformed flags and sessions with 400', async () => {
    for (const flags of ['mode', 'mode=sideways', 'nope=1', 'mode=observe,mode=enforce']) {
      const res = await t.call('/v1/chat/completions', chat('hi'), { key, headers: { 'x-gov-flags': flags } })
      assert.equal(res.status, 400, flags)
      assert.equal(res.body.error.code, 'invalid_flags')
    }
    const session = await t.call('/v1/chat/completions', chat('hi'), {
      key,
      headers: { 'x-gov-session': 'x'.repeat(300) },
    })
    assert.equal(session.status, 400)
  })

  it('takes a pipeline update on the next call, without restart', async () => {
    await t.createPipeline('fx-live', 'standard', onlySteps('standard', { fx_pass: {} }))
    const liveKey = await t.createAgent('agent-live', 'fx-live')
    assert.equal((await t.call('/v1/chat/completions', chat('forbidden'), { key: liveKey })).status, 200)
    const upd = await t.admin('PUT', '/pipelines/fx-live', {
      preset: 'standard',
      overrides: onlySteps('standard', { fx_block: {} }),
    })
    assert.equal(upd.status, 200)
    assert.equal(upd.body.version, 2)
    assert.equal((await t.call('/v1/chat/completions', chat('forbidden'), { key: liveKey })).status, 403)
    // Reassignment too.
    assert.equal((await t.admin('PUT', '/pipelines/fx-observe/assign/agent-live')).status, 200)
    assert.equal((await t.call('/v1/chat/completions', chat('forbidden'), { key: liveKey })).status, 200)
  })
})

describe('gateway authentication and bad input', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway()
    await t.createPipeline('plain', 'standard', onlySteps('standard', { fx_pass: {} }))
    key = await t.createAgent('agent-a', 'plain')
  })
  after(() => t.close())

  it('answers 401 without a key and with a wrong key, in each vendor format', async () => {
    const none = await t.call('/v1/chat/completions', chat('hi'))
    assert.equal(none.status, 401)
    assert.equal(none.body.error.code, 'unauthorized')
    const wrong = await t.call('/v1/messages', messages('hi'), { key: 'gov_wrong' })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.body.type, 'error')
    assert.equal(wrong.body.error.type, 'authentication_error')
  })

  it('accepts x-api-key as the Anthropic SDK sends it', async () => {
    const res = await t.call('/v1/messages', messages('via x-api-key'), { headers: { 'x-api-key': key } })
    assert.equal(res.status, 200)
    assert.equal(res.body.content[0].text, 'via x-api-key')
  })

  it('refuses the admin key on model endpoints and agent keys on admin endpoints with 403', async () => {
    const adminCall = await t.call('/v1/chat/completions', chat('hi'), { key: 'test-admin-key' })
    assert.equal(adminCall.status, 403)
    const agentAdmin = await t.admin('GET', '/pipelines', undefined, { key })
    assert.equal(agentAdmin.status, 403)
    assert.equal(agentAdmin.body.error.code, 'forbidden')
    assert.equal((await t.admin('GET', '/metrics', undefined, { key: null })).status, 401)
  })

  it('answers malformed bodies with 400, never 5xx', async () => {
    const cases: [string, string | undefined, unknown][] = [
      ['/v1/chat/completions', '{not json', undefined],
      ['/v1/chat/completions', '[1,2]', undefined],
      ['/v1/chat/completions', undefined, { messages: [{ role: 'user', content: 'no model' }] }],
      ['/v1/chat/completions', undefined, { model: 'gpt-4o', messages: [] }],
      ['/v1/chat/completions', undefined, { model: 'gpt-4o', messages: [{ role: 'wizard', content: 'x' }] }],
      ['/v1/messages', undefined, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }],
      ['/v1/messages', undefined, { model: 'claude-sonnet-4-6', max_tokens: 5, messages: 'x' }],
      [
        '/v1/messages',
        undefined,
        { model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      ],
    ]
    for (const [path, raw, body] of cases) {
      const res = await t.call(path as '/v1/messages', body, { key, ...(raw === undefined ? {} : { raw }) })
      assert.equal(res.status, 400, `${path} ${raw ?? JSON.stringify(body)} → ${res.text}`)
    }
  })

  it('refuses bodies over the size limit with 413', async () => {
    const res = await t.call('/v1/chat/completions', chat('x'.repeat(11 * 1024 * 1024)), { key })
    assert.equal(res.status, 413)
  })

  it('passes provider errors on in the vendor format', async () => {
    t.mock.enqueue({ transcript: 'openai/error_429' })
    const limited = await t.call('/v1/chat/completions', chat('hi'), { key })
    assert.equal(limited.status, 429)
    assert.ok(limited.body.error)
    t.mock.enqueue({ transcript: 'anthropic/error_529' })
    const overloaded = await t.call('/v1/messages', messages('hi'), { key })
    assert.equal(overloaded.status, 529)
    assert.equal(overloaded.body.error.type, 'overloaded_error')
  })

  it('answers 502 when the provider is unreachable and 504 when it is too slow', async () => {
    const down = await startTestGateway({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } })
    try {
      await down.createPipeline('p', 'standard', onlySteps('standard', {}))
      const k = await down.createAgent('a', 'p')
      const res = await down.call('/v1/chat/completions', chat('hi'), { key: k })
      assert.equal(res.status, 502)
      assert.equal(res.body.error.code, 'upstream_unreachable')
    } finally {
      await down.close()
    }
    const slow = await startTestGateway({ env: { GOV_UPSTREAM_TIMEOUT_MS: '200' } })
    try {
      await slow.createPipeline('p', 'standard', onlySteps('standard', {}))
      const k = await slow.createAgent('a', 'p')
      slow.mock.enqueue({ json: { never: true }, delayMs: 1500 })
      const res = await slow.call('/v1/chat/completions', chat('hi'), { key: k })
      assert.equal(res.status, 504)
      assert.equal(res.body.error.code, 'upstream_timeout')
    } finally {
      await slow.close()
    }
  })
})
