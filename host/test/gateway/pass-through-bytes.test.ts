/**
 * The request and answer bytes of a call no step can edit (a pipeline without
 * steps, or observe mode): the caller's bytes go to the provider and the
 * provider's bytes to the caller as they are, when they mean exactly what gov
 * read; otherwise (a repeated key, bytes that are not UTF-8, a step that could
 * edit) gov's own serialisation of what it read goes on, as before. A request
 * no step changed (no text part edited, no tool narrowed away, the writable
 * body not taken) goes on as the caller's bytes in enforce mode too.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

interface RawProvider {
  url: string
  /** Request bodies received, as bytes. */
  received: Buffer[]
  /** The answer bytes of the next calls (the last one repeats). */
  answers: Buffer[]
  close(): Promise<void>
}

async function startRawProvider(): Promise<RawProvider> {
  const received: Buffer[] = []
  const answers: Buffer[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push(Buffer.concat(chunks))
      const answer = (answers.length > 1 ? answers.shift() : answers[0]) as Buffer
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length })
      res.end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** An OpenAI answer with odd but legal formatting: spaces, a newline, escapes, `1.0`. */
const ODD_ANSWER =
  '{ "id" : "chatcmpl-1", "object":"chat.completion", "created":1.0, "model":"gpt-4o-mini",\n' +
  ' "choices":[{"index":0,"message":{"role":"assistant","content":"caf\\u00e9 \\ud83c\\udf89 ok"},' +
  '"finish_reason":"stop"}], "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5} }'

/** The same answer with a repeated key in its message. */
const REPEATED_ANSWER =
  '{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"gpt-4o-mini",' +
  '"choices":[{"index":0,"message":{"role":"assistant","content":"first","content":"second"},' +
  '"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}'

/** A request with odd but legal formatting. */
const ODD_REQUEST =
  '{ "model" : "gpt-4o-mini" ,\n "messages":[ {"role":"user","content":"h\\u00e9llo \\"there\\""} ],' +
  ' "temperature" : 1.0 }'

describe('pass-through of request and answer bytes', () => {
  let provider: RawProvider
  let t: TestGateway
  let emptyKey = ''
  let steppedKey = ''
  let editKey = ''
  let bodyKey = ''

  before(async () => {
    provider = await startRawProvider()
    t = await startTestGateway({ env: { OPENAI_BASE_URL: `${provider.url}/v1` } })
    await t.createPipeline('empty', 'standard', onlySteps('standard', {}))
    await t.createPipeline('stepped', 'standard', onlySteps('standard', { fx_block: {} }))
    emptyKey = await t.createAgent('empty-agent', 'empty')
    steppedKey = await t.createAgent('stepped-agent', 'stepped')
    await t.createPipeline('editing', 'standard', onlySteps('standard', { fx_edit: {} }), ['mode'])
    editKey = await t.createAgent('edit-agent', 'editing')
    await t.createPipeline('body', 'standard', onlySteps('standard', { fx_body: {}, fx_block: {} }))
    bodyKey = await t.createAgent('body-agent', 'body')
  })
  after(async () => {
    await t.close()
    await provider.close()
  })

  async function call(key: string, raw: string | Buffer, flags?: string) {
    const res = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(flags ? { 'x-gov-flags': flags } : {}),
      },
      body: raw,
    })
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
  }

  it("no steps: the caller's bytes reach the provider and the provider's bytes the caller, unchanged", async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const res = await call(emptyKey, ODD_REQUEST)
    assert.equal(res.status, 200)
    assert.equal(provider.received.at(-1)?.toString(), ODD_REQUEST)
    assert.equal(res.bytes.toString(), ODD_ANSWER)
    assert.equal(res.headers.get('content-type'), 'application/json')
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(ODD_ANSWER)))
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
    assert.ok(res.headers.get('x-gov-token'))
    assert.equal(res.headers.get('x-gov-pipeline-steps'), '0')
  })

  it('a repeated key in the request: the provider gets the value gov read (the last), serialised', async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const raw = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"shown","content":"governed"}]}'
    const res = await call(emptyKey, raw)
    assert.equal(res.status, 200)
    assert.equal(provider.received.at(-1)?.toString(), JSON.stringify(JSON.parse(raw)))
    assert.match(provider.received.at(-1)?.toString() ?? '', /"content":"governed"/)
    assert.doesNotMatch(provider.received.at(-1)?.toString() ?? '', /shown/)
  })

  it('a repeated key in the answer: the caller gets the answer gov read, serialised', async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(REPEATED_ANSWER))
    const res = await call(emptyKey, ODD_REQUEST)
    assert.equal(res.status, 200)
    assert.equal(res.bytes.toString(), JSON.stringify(JSON.parse(REPEATED_ANSWER)))
    assert.equal(JSON.parse(res.bytes.toString()).choices[0].message.content, 'second')
  })

  it('request bytes that are not UTF-8: the provider gets what gov read (U+FFFD), serialised', async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const raw = Buffer.concat([
      Buffer.from('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a'),
      Buffer.from([0xc0, 0xaf, 0xff]),
      Buffer.from('b"}]}'),
    ])
    const res = await call(emptyKey, raw)
    assert.equal(res.status, 200)
    const sent = provider.received.at(-1) as Buffer
    assert.equal(sent.toString(), JSON.stringify(JSON.parse(raw.toString('utf8'))))
    assert.match(sent.toString(), /a\ufffd\ufffd\ufffdb/)
  })

  it("a pipeline with a step that changes nothing: the caller's request bytes go upstream; the answer is gov's serialisation", async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const res = await call(steppedKey, ODD_REQUEST)
    assert.equal(res.status, 200)
    assert.equal(provider.received.at(-1)?.toString(), ODD_REQUEST)
    assert.equal(res.bytes.toString(), JSON.stringify(JSON.parse(ODD_ANSWER)))
    assert.equal(res.headers.get('content-length'), String(res.bytes.length))
  })

  it('a step that takes the writable body or narrows the tools: the request is serialised with the change', async () => {
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const ask = (text: string) =>
      `{ "model":"gpt-4o-mini", "messages":[{"role":"user","content":"${text}"}],` +
      ' "tools":[{"type":"function","function":{"name":"send_mail","parameters":{"type":"object"}}}] }'
    // Only reading the view: the caller's bytes.
    assert.equal((await call(bodyKey, ask('peek please'))).status, 200)
    assert.equal(provider.received.at(-1)?.toString(), ask('peek please'))
    // A direct write: serialised, the write included.
    assert.equal((await call(bodyKey, ask('stamp it'))).status, 200)
    const stamped = JSON.parse(provider.received.at(-1)?.toString() ?? '{}')
    assert.deepEqual(stamped.metadata, { stamped: 'yes' })
    assert.equal(
      provider.received.at(-1)?.toString(),
      JSON.stringify({ ...JSON.parse(ask('stamp it')), metadata: { stamped: 'yes' } }),
    )
    // Narrowed tools: serialised, without the tool.
    assert.equal((await call(bodyKey, ask('narrow them'))).status, 200)
    const narrowed = JSON.parse(provider.received.at(-1)?.toString() ?? '{}')
    assert.equal(narrowed.tools, undefined)
    assert.equal(narrowed.messages[0].content, 'narrow them')
  })

  it("a step that edits, in enforce mode: its edit goes upstream; in observe mode the caller's bytes do", async () => {
    const raw = '{ "model":"gpt-4o-mini", "messages":[{"role":"user","content":"my secret"}] }'
    provider.answers.splice(0, provider.answers.length, Buffer.from(ODD_ANSWER))
    const enforced = await call(editKey, raw)
    assert.equal(enforced.status, 200)
    assert.equal(
      provider.received.at(-1)?.toString(),
      '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"my [HIDDEN]"}]}',
    )
    assert.equal(enforced.bytes.toString(), JSON.stringify(JSON.parse(ODD_ANSWER)))
    const observed = await call(editKey, raw, 'mode=observe')
    assert.equal(observed.status, 200)
    assert.equal(provider.received.at(-1)?.toString(), raw)
    assert.equal(observed.bytes.toString(), ODD_ANSWER)
  })
})
