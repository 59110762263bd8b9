import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { PassThrough } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH, parseJson, readBody } from '../../src/http/body.js'
import { chatBody, messagesBody, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

/** `{"x":{"x":…1…}}` with `depth` objects. */
function nested(depth: number): string {
  return `${'{"x":'.repeat(depth - 1)}{"x":1}${'}'.repeat(depth - 1)}`
}

function assertDepthError(run: () => unknown, limit: number) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GovError)
    assert.equal(error.code, 'invalid_request')
    assert.equal(error.status, 400)
    assert.equal(error.details?.limit, limit)
    return true
  })
}

describe('JSON depth bound', () => {
  it('accepts a body exactly at the limit and refuses one level more', () => {
    assert.deepEqual(Object.keys(parseJson(Buffer.from(nested(DEFAULT_MAX_JSON_DEPTH))) as object), ['x'])
    assertDepthError(() => parseJson(Buffer.from(nested(DEFAULT_MAX_JSON_DEPTH + 1))), DEFAULT_MAX_JSON_DEPTH)
  })

  it('counts arrays and objects alike and honours a configured limit', () => {
    checkJsonDepth(Buffer.from('[[[1]]]'), 3)
    assertDepthError(() => checkJsonDepth(Buffer.from('{"a":[{"b":[]}]}'), 3), 3)
  })

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `\\"${'[{'.repeat(500)}`, t: 'a\\' })
    checkJsonDepth(Buffer.from(text), 2)
    assert.equal((parseJson(Buffer.from(text)) as { t: string }).t, 'a\\')
  })

  it('ends a string at a quote after an even run of backslashes', () => {
    // The value of "a" is `x\\` (ends in an escaped backslash): the brackets after it count.
    const text = Buffer.from(String.raw`{"a":"x\\","b":[[[1]]],"c":"\"[[[[[[\""}`)
    assert.deepEqual((JSON.parse(text.toString()) as { b: unknown }).b, [[[1]]])
    checkJsonDepth(text, 4)
    assertDepthError(() => checkJsonDepth(text, 3), 3)
  })

  it('refuses 100,000 levels without overflowing the stack', () => {
    assertDepthError(() => parseJson(Buffer.from(`{"a":${'['.repeat(100_000)}`)), DEFAULT_MAX_JSON_DEPTH)
  })
})

describe('deep bodies on the endpoints', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway()
    key = await t.createAgent('agent-depth')
  })
  after(() => t.close())

  // Before the bound, depth ≥ 5000 in an unknown field overflowed the stack when
  // the body was serialised for upstream: a 500. The raw text is built by hand
  // so the test itself never walks the deep value.
  const withDeepField = (body: Record<string, unknown>) =>
    `${JSON.stringify(body).slice(0, -1)},"metadata_extra":${nested(6000)}}`
  for (const [path, body] of [
    ['/v1/chat/completions', chatBody('hello')],
    ['/v1/messages', messagesBody('hello')],
  ] as const) {
    it(`${path}: 400 invalid_request in the vendor's error format`, async () => {
      const sent = t.mock.requests.length
      const res = await t.call(path, undefined, { key, raw: withDeepField(body) })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'invalid_request')
      if (path === '/v1/messages') assert.equal(res.body.type, 'error')
      assert.equal(t.mock.requests.length, sent, 'nothing reached the provider')
    })
  }

  // Before the check the prompt reached the steps, and dedupe failed closed on it: 500 GOV_ERR_STEP_FAILED.
  for (const path of ['/v1/chat/completions', '/v1/messages'] as const) {
    it(`${path}: a lone surrogate in the prompt is 400 invalid_request`, async () => {
      const body = path === '/v1/messages' ? messagesBody('PLACEHOLDER') : chatBody('PLACEHOLDER')
      const raw = JSON.stringify(body).replace('PLACEHOLDER', String.raw`half an emoji \ud83d`)
      const res = await t.call(path, undefined, { key, raw })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'invalid_request')
    })
  }

  it('a body at a normal depth still passes', async () => {
    const res = await t.call(
      '/v1/chat/completions',
      chatBody('hello', { metadata_extra: JSON.parse(nested(20)) }),
      {
        key,
      },
    )
    assert.equal(res.status, 200)
  })

  it('admin endpoints refuse deep bodies too', async () => {
    const raw = `{"pipeline_id":"deep","preset":"standard","overrides":{"detect_pii":${nested(6000)}}}`
    const res = await t.admin('POST', '/pipelines', raw)
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'invalid_request')
  })
})

describe('lone surrogate escapes', () => {
  const refused = (text: string) =>
    assert.throws(
      () => parseJson(Buffer.from(text)),
      (error: unknown) =>
        error instanceof GovError && error.code === 'invalid_request' && error.status === 400,
    )

  it('refuses a lone high or low surrogate, alone or followed by something else', () => {
    for (const text of [
      String.raw`{"a":"\ud800"}`,
      String.raw`{"a":"x\uDBFFy"}`,
      String.raw`{"a":"\udc00"}`,
      String.raw`{"a":"\ud800\u0041"}`,
      String.raw`{"a":"\ud800\\udc00"}`,
      String.raw`{"\ud83d":1}`,
    ]) {
      refused(text)
    }
  })

  it('accepts pairs (emoji as escapes), other escapes, and an escaped backslash before u', () => {
    const value = parseJson(Buffer.from(String.raw`{"a":"\ud83d\ude00 \u00e9 \\ud800 \\\ud83d\ude00"}`)) as {
      a: string
    }
    assert.equal(value.a, '😀 é \\ud800 \\😀')
  })
})

/** A request body stream with `headers`, fed by the test. */
function fakeRequest(
  headers: Record<string, string> = {},
): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers })
}

describe('readBody', () => {
  const asRequest = (stream: PassThrough) => stream as unknown as IncomingMessage

  it('joins the chunks of a body in order, and takes a body exactly at the limit', async () => {
    const req = fakeRequest()
    const read = readBody(asRequest(req), 6)
    req.write('abc')
    req.write('de')
    req.end('f')
    assert.equal((await read).toString(), 'abcdef')
  })

  it('refuses a body over the limit without content-length with 413 and drains the rest', async () => {
    const req = fakeRequest()
    const read = readBody(asRequest(req), 4)
    req.write('abc')
    req.write('def')
    await assert.rejects(read, (error: unknown) => {
      assert.ok(error instanceof GovError)
      assert.equal(error.code, 'request_too_large')
      assert.equal(error.status, 413)
      return true
    })
    // The refused body keeps flowing (and is dropped), so the connection can carry the 413.
    req.end('more')
    await new Promise((resolve) => req.once('end', resolve))
    assert.equal(req.listenerCount('data'), 0)
  })

  it('refuses a declared length over the limit before reading', async () => {
    const req = fakeRequest({ 'content-length': '100' })
    await assert.rejects(readBody(asRequest(req), 10), (error: unknown) => {
      assert.ok(error instanceof GovError)
      return error.code === 'request_too_large'
    })
  })

  it('rejects when the stream fails or closes before its end, and leaves no listener behind', async () => {
    const failed = fakeRequest()
    const read = readBody(asRequest(failed), 100)
    failed.write('ab')
    failed.destroy(new Error('boom'))
    await assert.rejects(read, /boom/)
    const closed = fakeRequest()
    const early = readBody(asRequest(closed), 100)
    closed.write('ab')
    closed.destroy()
    await assert.rejects(early, /closed before its body ended/)
    const ok = fakeRequest()
    const done = readBody(asRequest(ok), 100)
    ok.end('x')
    await done
    for (const event of ['data', 'end', 'error', 'close']) assert.equal(ok.listenerCount(event), 0)
  })

  it('settles on a stream that was over before it was called: closed rejects, ended is empty', {
    timeout: 5000,
  }, async () => {
    const closed = fakeRequest()
    closed.write('ab')
    closed.destroy()
    await new Promise((resolve) => closed.once('close', resolve))
    await assert.rejects(readBody(asRequest(closed), 100), /closed before its body ended/)
    const ended = fakeRequest()
    ended.end('x')
    ended.resume()
    await new Promise((resolve) => ended.once('end', resolve))
    assert.equal((await readBody(asRequest(ended), 100)).length, 0)
  })
})
