import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { CORE_VERSION, defineStep, type StepPlugin, Type, Verdicts } from '@gov/core'
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'
import { fixtureSteps } from '../../src/testing/fixture-steps.js'
import {
  chatBody,
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'

/** Narrows the granted tools to `search` when the text asks for it, as a tool filter would. */
const narrowStep = defineStep({
  name: 'tok_narrow',
  packageName: 'fixture:tok_narrow',
  version: '0.0.0',
  core: `^${CORE_VERSION}`,
  description: 'narrows the tools a token grants',
  settings: Type.Object({}, { additionalProperties: false }),
  create: () => ({
    onRequest: (ctx) => {
      const text = ctx.exchange.messages.at(-1)?.parts.at(-1)?.text ?? ''
      if (text.includes('narrow')) ctx.exchange.narrowTools((tool) => tool.name === 'search')
      return Verdicts.continue()
    },
  }),
}) as StepPlugin

const openAiTools = [
  { type: 'function', function: { name: 'search', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'send_email', parameters: { type: 'object', properties: {} } } },
]
const anthropicTools = [
  { name: 'search', input_schema: { type: 'object', properties: {} } },
  { name: 'lookup_order', input_schema: { type: 'object', properties: {} } },
]
/** The answer of `POST /v1/tokens/verify` as a client reads it. */
interface VerifyBody {
  valid: boolean
  result?: string
  reason?: string
  claims?: Record<string, unknown>
}

const chat = chatBody
const messages = messagesBody

describe('capability tokens through the gateway', () => {
  let t: TestGateway
  let key: string
  let markedKey: string
  let jwksUrl: URL
  const logChunks: string[] = []

  before(async () => {
    t = await startTestGateway({
      env: { LOG_LEVEL: 'debug' },
      plugins: [...fixtureSteps, narrowStep],
      start: {
        logDestination: new Writable({
          write(chunk, _encoding, done) {
            logChunks.push(String(chunk))
            done()
          },
        }),
      },
    })
    await t.createPipeline(
      'tok',
      'standard',
      onlySteps('standard', { fx_pass: {}, fx_block: {}, tok_narrow: {} }),
    )
    await t.createPipeline(
      'tok-marked',
      'standard',
      onlySteps('standard', { fx_block: { word: 'classified', level: 'restricted', strictness: 'off' } }),
    )
    key = await t.createAgent('agent-tok', 'tok')
    markedKey = await t.createAgent('agent-marked', 'tok-marked')
    jwksUrl = new URL('/.well-known/jwks.json', t.url)
  })
  after(() => t.close())

  async function verifyOnline(token: unknown, audience?: string) {
    const res = await fetch(new URL('/v1/tokens/verify', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(audience === undefined ? { token } : { token, audience }),
    })
    return { status: res.status, body: (await res.json()) as VerifyBody }
  }

  async function tokenMetric(result: string): Promise<number> {
    const res = await t.admin('GET', '/metrics')
    const line = res.text
      .split('\n')
      .find((l) => l.startsWith(`gov_capability_tokens_total{result="${result}"}`))
    return line ? Number(line.split(' ').at(-1)) : 0
  }

  it('returns a token with the call’s claims on an allowed chat completion', async () => {
    const res = await t.call('/v1/chat/completions', chat('hello', { tools: openAiTools }), {
      key,
      headers: { 'x-gov-session': 'session-7' },
    })
    assert.equal(res.status, 200)
    const token = res.headers.get('x-gov-token')
    assert.ok(token, 'x-gov-token is set')
    const claims = decodeJwt(token)
    assert.equal(claims.sub, 'agent-tok')
    assert.equal(claims.sid, 'session-7')
    assert.equal(claims.pipeline, 'tok')
    assert.equal(claims.pipeline_version, (await t.admin('GET', '/pipelines/tok')).body.version)
    assert.equal(claims.classification, res.headers.get('x-gov-classification'))
    assert.deepEqual(claims.tools, ['search', 'send_email'])
    assert.equal(claims.aud, 'gov-tools')
    assert.equal(claims.iss, 'gov')
    assert.equal((claims.exp as number) - (claims.iat as number), 300)
    assert.equal(typeof claims.jti, 'string')
    assert.ok(decodeProtectedHeader(token).kid)
  })

  it('verifies offline against the JWKS URL with jose', async () => {
    const res = await t.call('/v1/chat/completions', chat('offline please'), { key })
    const jwks = createRemoteJWKSet(jwksUrl)
    // As the README's tool-server example does it.
    const { payload } = await jwtVerify(res.headers.get('x-gov-token') as string, jwks, {
      issuer: 'gov',
      audience: 'gov-tools',
      typ: 'gov-capability+jwt',
    })
    assert.equal(payload.sub, 'agent-tok')
    assert.deepEqual(payload.tools, [])
    assert.equal('sid' in payload, false, 'no session header, no sid')
  })

  it('returns a token on streamed answers of both endpoints and on /v1/messages', async () => {
    const cases = [
      await t.call('/v1/chat/completions', chat('stream it', { stream: true, tools: openAiTools }), { key }),
      await t.call('/v1/messages', messages('stream it', { stream: true, tools: anthropicTools }), { key }),
      await t.call('/v1/messages', messages('json please', { tools: anthropicTools }), { key }),
    ]
    const jwks = createRemoteJWKSet(jwksUrl)
    for (const [i, res] of cases.entries()) {
      assert.equal(res.status, 200)
      const token = res.headers.get('x-gov-token')
      assert.ok(token, `case ${i} has a token`)
      const { payload } = await jwtVerify(token, jwks, { issuer: 'gov', audience: 'gov-tools' })
      assert.deepEqual(payload.tools, i === 0 ? ['search', 'send_email'] : ['search', 'lookup_order'])
    }
    assert.match(cases[0].headers.get('content-type') ?? '', /text\/event-stream/)
  })

  it('grants only the tools a step left allowed', async () => {
    const res = await t.call('/v1/chat/completions', chat('narrow the tools', { tools: openAiTools }), {
      key,
    })
    assert.deepEqual(decodeJwt(res.headers.get('x-gov-token') as string).tools, ['search'])
  })

  it('carries the call’s classification', async () => {
    const res = await t.call('/v1/chat/completions', chat('this is classified'), { key: markedKey })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-gov-classification'), 'restricted')
    const claims = decodeJwt(res.headers.get('x-gov-token') as string)
    assert.equal(claims.classification, 'restricted')
    assert.equal(claims.pipeline, 'tok-marked')
  })

  it('gives blocked calls no token and counts them as denied', async () => {
    const denied = await tokenMetric('denied')
    const minted = await tokenMetric('minted')
    for (const res of [
      await t.call('/v1/chat/completions', chat('forbidden words'), { key }),
      await t.call('/v1/messages', messages('forbidden words', { stream: true }), { key }),
    ]) {
      assert.equal(res.status, 403)
      assert.equal(res.headers.get('x-gov-token'), null)
    }
    assert.equal(await tokenMetric('denied'), denied + 2)
    assert.equal(await tokenMetric('minted'), minted)
    await t.call('/v1/chat/completions', chat('allowed'), { key })
    assert.equal(await tokenMetric('minted'), minted + 1)
  })

  it('hands the token id to the call summary', async () => {
    const res = await t.call('/v1/chat/completions', chat('audit me'), { key })
    const jti = decodeJwt(res.headers.get('x-gov-token') as string).jti
    const calls = logChunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'call')
    assert.ok(calls.some((l) => l.tokenId === jti && l.outcome === 'allowed'))
  })

  it('verifies online: valid tokens, wrong audience, and bad tokens as 200 with reasons', async () => {
    const token = (await t.call('/v1/chat/completions', chat('verify me'), { key })).headers.get(
      'x-gov-token',
    )
    const ok = await verifyOnline(token)
    assert.equal(ok.status, 200)
    assert.equal(ok.body.valid, true)
    assert.equal(ok.body.claims?.sub, 'agent-tok')
    const aud = await verifyOnline(token, 'other-tools')
    assert.deepEqual(
      [aud.status, aud.body.valid, aud.body.result, aud.body.reason],
      [200, false, 'denied', 'wrong_audience'],
    )
    const expiredBefore = await tokenMetric('expired')
    const deniedBefore = await tokenMetric('denied')
    const shapes = [
      '',
      'x',
      'a.b.c',
      '...',
      `${token}x`,
      'eyJhbGciOiJub25lIn0.e30.',
      '%%%.%%%.%%%',
      '€.€.€',
      'a'.repeat(30_000),
    ]
    for (const shape of shapes) {
      const res = await verifyOnline(shape)
      assert.equal(res.status, 200, `shape ${shape.slice(0, 20)}`)
      assert.equal(res.body.valid, false)
      assert.equal(res.body.result, 'denied')
      assert.ok(['malformed', 'bad_signature'].includes(res.body.reason ?? ''), res.body.reason)
    }
    assert.equal(await tokenMetric('denied'), deniedBefore + shapes.length)
    assert.equal(await tokenMetric('expired'), expiredBefore)
  })

  it('answers 400 to a request body that is not a verify request', async () => {
    for (const [raw, code] of [
      ['not json', 'invalid_json'],
      ['[]', 'invalid_request'],
      ['{}', 'invalid_request'],
      ['{"token":42}', 'invalid_request'],
      ['{"token":"a.b.c","audience":""}', 'invalid_request'],
      ['{"token":"a.b.c","extra":1}', 'invalid_request'],
    ] as const) {
      const res = await fetch(new URL('/v1/tokens/verify', t.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      })
      assert.equal(res.status, 400, raw)
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, code)
    }
  })

  it('publishes the JWKS without auth and never a private part', async () => {
    const res = await fetch(jwksUrl)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('cache-control') ?? '', /max-age=/)
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] }
    assert.ok(keys.length >= 1)
    for (const k of keys) {
      assert.equal(k.d, undefined)
      assert.equal(typeof k.kid, 'string')
      assert.ok(['EdDSA', 'ES256'].includes(k.alg as string))
    }
  })

  it('rotates keys by the admin endpoint, keeping earlier tokens valid', async () => {
    assert.equal((await t.admin('POST', '/admin/tokens/rotate', undefined, { key: null })).status, 401)
    assert.equal((await t.admin('POST', '/admin/tokens/rotate', undefined, { key })).status, 403)

    const jwks = createRemoteJWKSet(jwksUrl)
    const old = (await t.call('/v1/chat/completions', chat('before rotation'), { key })).headers.get(
      'x-gov-token',
    ) as string
    await jwtVerify(old, jwks, { issuer: 'gov', audience: 'gov-tools' })

    const rotation = await t.admin('POST', '/admin/tokens/rotate')
    assert.equal(rotation.status, 200)
    assert.equal(rotation.body.previous_kid, decodeProtectedHeader(old).kid)
    const fresh = (await t.call('/v1/chat/completions', chat('after rotation'), { key })).headers.get(
      'x-gov-token',
    ) as string
    assert.equal(decodeProtectedHeader(fresh).kid, rotation.body.kid)

    // The same remote set, fetched before the rotation and still cooling down, knows the new key already.
    await jwtVerify(fresh, jwks, { issuer: 'gov', audience: 'gov-tools' })
    await jwtVerify(old, createRemoteJWKSet(jwksUrl), { issuer: 'gov', audience: 'gov-tools' })
    assert.equal((await verifyOnline(old)).body.valid, true)
    assert.equal((await verifyOnline(fresh)).body.valid, true)
  })
})
