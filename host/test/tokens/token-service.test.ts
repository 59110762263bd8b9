import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  base64url,
  createLocalJWKSet,
  decodeProtectedHeader,
  generateKeyPair,
  generateSecret,
  importJWK,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose'
import { type MintedToken, TOKEN_TYPE } from '../../src/tokens/token-service.js'
import type { VerifyResult } from '../../src/tokens/verify-result.js'
import { privateKeyText, sampleGrant, TestSecrets, tokenCount, tokenKit } from './token-test-kit.js'

function refusal(result: VerifyResult) {
  assert.equal(result.valid, false, 'the token must be refused')
  return result as Extract<VerifyResult, { valid: false }>
}

/** The token with its payload replaced, header and signature kept. */
function withPayload(token: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.')
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)))
  change(claims)
  return `${header}.${base64url.encode(JSON.stringify(claims))}.${signature}`
}

function sampleGrantClaims() {
  return { pipeline: 'p', pipeline_version: 1, classification: 'public', tools: [] }
}

describe('TokenService mint and verify', () => {
  it('mints a token that verifies back to the grant', async () => {
    const { tokens, clock } = await tokenKit()
    const minted = await tokens.mint(sampleGrant())
    const result = await tokens.verify(minted.token)
    assert.equal(result.valid, true)
    assert.ok(result.valid)
    const { claims } = result
    assert.equal(claims.sub, 'agent-1')
    assert.equal(claims.sid, 'sess-42')
    assert.equal(claims.pipeline, 'support')
    assert.equal(claims.pipeline_version, 3)
    assert.equal(claims.classification, 'confidential')
    assert.deepEqual(claims.tools, ['search', 'send_email'])
    assert.equal(claims.iss, 'gov')
    assert.equal(claims.aud, 'gov-tools')
    assert.equal(claims.jti, minted.id)
    assert.equal(claims.iat, Math.floor(clock.ms / 1000))
    assert.equal(claims.exp - claims.iat, 300)
    const header = decodeProtectedHeader(minted.token)
    assert.equal(header.alg, 'EdDSA')
    assert.equal(header.typ, TOKEN_TYPE)
    assert.equal(header.kid, minted.kid)
  })

  it('writes the claims in one order, sid after jti when there is a session', async () => {
    const { tokens } = await tokenKit()
    const keysOf = (minted: MintedToken) =>
      Object.keys(
        JSON.parse(new TextDecoder().decode(base64url.decode(minted.token.split('.')[1] as string))),
      )
    const common = ['iss', 'sub', 'aud', 'iat', 'exp', 'jti']
    const rest = ['pipeline', 'pipeline_version', 'classification', 'tools', 'labels']
    assert.deepEqual(keysOf(await tokens.mint(sampleGrant())), [...common, 'sid', ...rest])
    assert.deepEqual(keysOf(await tokens.mint(sampleGrant({ sessionId: undefined }))), [...common, ...rest])
  })

  it('leaves sid out without a session and, with reuse off, gives every token its own jti', async () => {
    const { tokens } = await tokenKit({ settings: { reuse: 'off' } })
    const a = await tokens.mint(sampleGrant({ sessionId: undefined }))
    const b = await tokens.mint(sampleGrant({ sessionId: undefined }))
    assert.notEqual(a.id, b.id)
    assert.notEqual(a.token, b.token)
    const result = await tokens.verify(a.token)
    assert.ok(result.valid)
    assert.equal('sid' in result.claims, false)
  })

  it('follows the configured lifetime, audience and issuer', async () => {
    const { tokens } = await tokenKit({
      settings: { ttlSeconds: 42, audience: 'billing-tools', issuer: 'gov-eu' },
    })
    const result = await tokens.verify((await tokens.mint(sampleGrant())).token)
    assert.ok(result.valid)
    assert.equal(result.claims.exp - result.claims.iat, 42)
    assert.equal(result.claims.aud, 'billing-tools')
    assert.equal(result.claims.iss, 'gov-eu')
  })

  it('verifies offline with jose against the published JWKS', async () => {
    const { tokens, clock } = await tokenKit()
    const minted = await tokens.mint(sampleGrant())
    const jwks = createLocalJWKSet(await tokens.jwks())
    const { payload } = await jwtVerify(minted.token, jwks, {
      issuer: 'gov',
      audience: 'gov-tools',
      currentDate: new Date(clock.ms),
    })
    assert.equal(payload.sub, 'agent-1')
    for (const key of (await tokens.jwks()).keys) {
      assert.equal(key.d, undefined, 'the JWKS never carries a private part')
      assert.equal(key.use, 'sig')
    }
  })
})

describe('TokenService refusals', () => {
  it('refuses a token of another gateway as an unknown key', async () => {
    const ours = await tokenKit()
    const theirs = await tokenKit()
    const result = refusal(await ours.tokens.verify((await theirs.tokens.mint(sampleGrant())).token))
    assert.equal(result.result, 'denied')
    assert.equal(result.reason, 'unknown_key')
  })

  it('refuses a token forged with another key under our kid as a bad signature', async () => {
    const { tokens, clock } = await tokenKit()
    const { kid } = await tokens.mint(sampleGrant())
    const { privateKey } = await generateKeyPair('EdDSA')
    const iat = Math.floor(clock.ms / 1000)
    const forged = await new SignJWT({ ...sampleGrantClaims(), tools: ['rm'] })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: TOKEN_TYPE })
      .setSubject('agent-1')
      .setIssuer('gov')
      .setAudience('gov-tools')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .setJti('forged')
      .sign(privateKey)
    const result = refusal(await tokens.verify(forged))
    assert.equal(result.result, 'denied')
    assert.equal(result.reason, 'bad_signature')
  })

  it('refuses a token whose payload was changed', async () => {
    const { tokens } = await tokenKit()
    const minted = await tokens.mint(sampleGrant())
    for (const change of [
      (c: Record<string, unknown>) => {
        c.tools = ['search', 'send_email', 'delete_everything']
      },
      (c: Record<string, unknown>) => {
        c.sub = 'admin'
      },
      (c: Record<string, unknown>) => {
        c.exp = (c.exp as number) + 86_400
      },
    ]) {
      const result = refusal(await tokens.verify(withPayload(minted.token, change)))
      assert.equal(result.reason, 'bad_signature')
    }
  })

  it('reports an expired token as expired, and not before its time', async () => {
    const { tokens, clock } = await tokenKit()
    const minted = await tokens.mint(sampleGrant())
    clock.advance(299)
    assert.equal((await tokens.verify(minted.token)).valid, true)
    clock.advance(2)
    const result = refusal(await tokens.verify(minted.token))
    assert.equal(result.result, 'expired')
    assert.equal(result.reason, 'expired')
  })

  it('refuses a token for another audience or from another issuer', async () => {
    const { tokens, clock } = await tokenKit()
    const secrets = new TestSecrets()
    const minted = await tokens.mint(sampleGrant())
    const wrongAudience = refusal(await tokens.verify(minted.token, 'payments-tools'))
    assert.equal(wrongAudience.reason, 'wrong_audience')
    assert.equal(wrongAudience.result, 'denied')
    assert.equal((await tokens.verify(minted.token, 'gov-tools')).valid, true)

    // Same key, other issuer: only the issuer differs.
    secrets.values.set('GOV_TOKEN_SIGNING_KEY', privateKeyText('ed25519-jwk'))
    const a = await tokenKit({ secrets, clock })
    const b = await tokenKit({ secrets, clock, settings: { issuer: 'someone-else' } })
    const wrongIssuer = refusal(await a.tokens.verify((await b.tokens.mint(sampleGrant())).token))
    assert.equal(wrongIssuer.reason, 'wrong_issuer')
  })

  it('answers malformed tokens of every shape with a refusal, never an exception', async () => {
    const { tokens } = await tokenKit()
    const minted = await tokens.mint(sampleGrant())
    const [header, payload] = minted.token.split('.')
    const hmac = await new SignJWT({ sub: 'agent-1' })
      .setProtectedHeader({ alg: 'HS256', kid: minted.kid, typ: TOKEN_TYPE })
      .sign(await generateSecret('HS256'))
    const plainJwt = await new SignJWT({ sub: 'agent-1' })
      .setProtectedHeader({ alg: 'EdDSA', kid: minted.kid })
      .sign((await generateKeyPair('EdDSA')).privateKey)
    const shapes: unknown[] = [
      '',
      'abc',
      'a.b',
      'a.b.c',
      '..',
      'a..c',
      ' '.repeat(10),
      `${minted.token}.extra`,
      `${minted.token} `,
      'x'.repeat(20_000),
      `${base64url.encode('not json')}.${payload}.AAAA`,
      `${header}.${base64url.encode('not json')}.AAAA`,
      `${header}.${base64url.encode('[1,2]')}.AAAA`,
      new UnsecuredJWT({ sub: 'agent-1' }).encode(),
      `${base64url.encode(JSON.stringify({ alg: 'none', kid: minted.kid, typ: TOKEN_TYPE }))}.${payload}.AAAA`,
      hmac,
      plainJwt,
      'Bearer abc.def.ghi',
      'ÿ.ÿ.ÿ',
      123,
      null,
      undefined,
      { token: minted.token },
    ]
    for (const shape of shapes) {
      const result = refusal(await tokens.verify(shape))
      assert.equal(result.result, 'denied', `shape ${JSON.stringify(shape)?.slice(0, 40)}`)
      assert.ok(
        ['malformed', 'unknown_key', 'bad_signature'].includes(result.reason),
        `shape ${JSON.stringify(shape)?.slice(0, 40)} → ${result.reason}`,
      )
    }
    assert.equal(refusal(await tokens.verify('abc')).reason, 'malformed')
    assert.equal(refusal(await tokens.verify(hmac)).reason, 'malformed')
  })

  it('refuses a token signed with our key that lacks the capability claims', async () => {
    const secrets = new TestSecrets()
    const text = privateKeyText('ed25519-jwk')
    secrets.values.set('GOV_TOKEN_SIGNING_KEY', text)
    const ours = await tokenKit({ secrets })
    const { clock } = ours
    const kid = decodeProtectedHeader((await ours.tokens.mint(sampleGrant())).token).kid as string
    const iat = Math.floor(clock.ms / 1000)
    const bare = await new SignJWT({ pipeline: 'p' })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: TOKEN_TYPE })
      .setSubject('agent-1')
      .setIssuer('gov')
      .setAudience('gov-tools')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti('x')
      .sign(await importJWK(JSON.parse(text), 'EdDSA'))
    assert.equal(refusal(await ours.tokens.verify(bare)).reason, 'malformed')
    const untyped = await new SignJWT(sampleGrantClaims())
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .setSubject('agent-1')
      .setIssuer('gov')
      .setAudience('gov-tools')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti('y')
      .sign(await importJWK(JSON.parse(text), 'EdDSA'))
    assert.equal(
      refusal(await ours.tokens.verify(untyped)).reason,
      'malformed',
      'a JWT without our typ is no capability',
    )
  })
})

describe('TokenService key rotation', () => {
  it('keeps tokens signed before a rotation valid until they expire', async () => {
    const { tokens, clock } = await tokenKit()
    const before = await tokens.mint(sampleGrant())
    const announced = (await tokens.jwks()).keys.map((k) => k.kid)
    assert.equal(announced.length, 2, 'the signing key and the next one are published')
    const rotation = await tokens.rotate()
    assert.equal(rotation.previous_kid, before.kid)
    assert.equal(rotation.source, 'generated')
    assert.ok(announced.includes(rotation.kid), 'the new key was published before it signed anything')
    const after = await tokens.mint(sampleGrant())
    assert.equal(after.kid, rotation.kid)
    assert.notEqual(after.kid, before.kid)
    assert.equal((await tokens.verify(before.token)).valid, true)
    assert.equal((await tokens.verify(after.token)).valid, true)
    const offline = createLocalJWKSet(await tokens.jwks())
    await jwtVerify(before.token, offline, { currentDate: new Date(clock.ms) })
    await jwtVerify(after.token, offline, { currentDate: new Date(clock.ms) })

    clock.advance(300 + 61)
    const kids = (await tokens.jwks()).keys.map((k) => k.kid)
    assert.equal(kids.includes(before.kid), false, 'a retired key leaves the JWKS once its tokens expired')
    assert.equal(refusal(await tokens.verify(before.token)).reason, 'unknown_key')
  })

  it('still verifies an old token after several rotations', async () => {
    const { tokens } = await tokenKit()
    const first: MintedToken = await tokens.mint(sampleGrant())
    await tokens.rotate()
    await tokens.rotate()
    await tokens.rotate()
    assert.equal((await tokens.verify(first.token)).valid, true)
  })
})

describe('TokenService metrics', () => {
  it('counts minted, denied and expired tokens', async () => {
    const { tokens, clock, metrics } = await tokenKit()
    const a = await tokens.mint(sampleGrant())
    await tokens.mint(sampleGrant())
    await tokens.verify(a.token)
    await tokens.verify('garbage')
    await tokens.verify(a.token, 'elsewhere')
    tokens.countRefusedCall()
    clock.advance(400)
    await tokens.verify(a.token)
    assert.equal(await tokenCount(metrics, 'minted'), 2)
    assert.equal(await tokenCount(metrics, 'denied'), 3)
    assert.equal(await tokenCount(metrics, 'expired'), 1)
  })
})
