import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { decodeProtectedHeader } from 'jose'
import { TokenErrorCodes } from '../../src/tokens/token-errors.js'
import { privateKeyText, sampleGrant, TestClock, TestSecrets, tokenKit } from './token-test-kit.js'

const SECRET = 'GOV_TOKEN_SIGNING_KEY'

function secretsWith(text: string): TestSecrets {
  const secrets = new TestSecrets()
  secrets.values.set(SECRET, text)
  return secrets
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.fail('condition not reached')
}

describe('configured signing key', () => {
  for (const [kind, alg] of [
    ['ed25519-jwk', 'EdDSA'],
    ['ed25519-pem', 'EdDSA'],
    ['p256-pem', 'ES256'],
    ['p256-jwk', 'ES256'],
  ] as const) {
    it(`signs with a ${kind} key as ${alg}`, async () => {
      const { tokens } = await tokenKit({ secrets: secretsWith(privateKeyText(kind)) })
      const minted = await tokens.mint(sampleGrant())
      assert.equal(decodeProtectedHeader(minted.token).alg, alg)
      assert.equal((await tokens.verify(minted.token)).valid, true)
      const jwks = await tokens.jwks()
      assert.equal(jwks.keys.length, 1, 'a configured key has no generated companion')
      assert.equal(jwks.keys[0].alg, alg)
    })
  }

  it('gives every replica with the same key the same kid, so their tokens cross-verify', async () => {
    const text = privateKeyText('p256-pem')
    const clock = new TestClock()
    const a = await tokenKit({ secrets: secretsWith(text), clock })
    const b = await tokenKit({ secrets: secretsWith(text), clock })
    const minted = await a.tokens.mint(sampleGrant())
    assert.equal((await b.tokens.jwks()).keys[0].kid, minted.kid)
    assert.equal((await b.tokens.verify(minted.token)).valid, true)
  })

  it('keeps the kid a JWK names', async () => {
    const jwk = { ...JSON.parse(privateKeyText('ed25519-jwk')), kid: 'vault-2026-01' }
    const { tokens } = await tokenKit({ secrets: secretsWith(JSON.stringify(jwk)) })
    assert.equal((await tokens.mint(sampleGrant())).kid, 'vault-2026-01')
  })

  for (const [label, text] of [
    ['text that is no key', 'definitely-not-a-key'],
    ['broken JSON', '{"kty":"OKP",'],
    ['a public JWK', JSON.stringify({ ...JSON.parse(privateKeyText('ed25519-jwk')), d: undefined })],
    ['an RSA key', privateKeyText('rsa-pem')],
  ] as const) {
    it(`refuses to start with ${label}`, async () => {
      await assert.rejects(tokenKit({ secrets: secretsWith(text) }), (err: GovError) => {
        assert.equal(err.code, TokenErrorCodes.KEY_INVALID)
        assert.equal(err.message.includes(text.slice(0, 24)), false, 'the key text is never echoed')
        return true
      })
    })
  }
})

describe('key changes', () => {
  it('refuses a rotation while the configured secret still holds the key in use', async () => {
    const { tokens, secrets } = await tokenKit({ secrets: secretsWith(privateKeyText('ed25519-jwk')) })
    await assert.rejects(
      tokens.rotate(),
      (err: GovError) => err.code === TokenErrorCodes.KEY_UNCHANGED && err.status === 409,
    )
    assert.ok(secrets.invalidated.includes(SECRET), 'the rotation re-read the vault')
  })

  it('rotates to a new configured key and keeps the old one verifiable', async () => {
    const { tokens, secrets } = await tokenKit({ secrets: secretsWith(privateKeyText('ed25519-jwk')) })
    const before = await tokens.mint(sampleGrant())
    secrets.values.set(SECRET, privateKeyText('p256-jwk'))
    const rotation = await tokens.rotate()
    assert.equal(rotation.source, 'configured')
    assert.equal(rotation.previous_kid, before.kid)
    const after = await tokens.mint(sampleGrant())
    assert.equal(after.kid, rotation.kid)
    assert.equal(decodeProtectedHeader(after.token).alg, 'ES256')
    assert.equal((await tokens.verify(before.token)).valid, true)
    assert.equal((await tokens.jwks()).keys.length, 2)
  })

  it('adopts a key changed in the vault while minting, without a rotation call', async () => {
    const { tokens, secrets, clock } = await tokenKit({ secrets: secretsWith(privateKeyText('ed25519-jwk')) })
    const before = await tokens.mint(sampleGrant())
    secrets.values.set(SECRET, privateKeyText('ed25519-pem'))
    clock.advance(11)
    await tokens.mint(sampleGrant())
    await eventually(async () => (await tokens.mint(sampleGrant())).kid !== before.kid)
    assert.equal((await tokens.verify(before.token)).valid, true)
  })

  it('keeps signing with the old key when the vault gets an unusable one', async () => {
    const { tokens, secrets, clock, logs } = await tokenKit({
      secrets: secretsWith(privateKeyText('ed25519-jwk')),
    })
    const before = await tokens.mint(sampleGrant())
    secrets.values.set(SECRET, 'garbage')
    clock.advance(11)
    await tokens.mint(sampleGrant())
    await eventually(async () => logs().some((l) => l.code === TokenErrorCodes.KEY_INVALID))
    assert.equal((await tokens.mint(sampleGrant())).kid, before.kid)
  })

  it('learns a key another replica rotated to when a token names its kid', async () => {
    const clock = new TestClock()
    const first = privateKeyText('ed25519-jwk')
    const a = await tokenKit({ secrets: secretsWith(first), clock })
    const b = await tokenKit({ secrets: secretsWith(first), clock })
    const second = privateKeyText('ed25519-jwk')
    a.secrets.values.set(SECRET, second)
    b.secrets.values.set(SECRET, second)
    await a.tokens.rotate()
    const minted = await a.tokens.mint(sampleGrant())
    assert.equal((await b.tokens.verify(minted.token)).valid, true)
  })

  it('warns in production when it has to generate the key, and only then', async () => {
    const generated = await tokenKit({ production: true })
    assert.ok(generated.logs().some((l) => l.level === 40 && String(l.msg).includes(SECRET)))
    const configured = await tokenKit({
      production: true,
      secrets: secretsWith(privateKeyText('ed25519-jwk')),
    })
    assert.equal(
      configured.logs().some((l) => l.level === 40),
      false,
    )
    const development = await tokenKit({ production: false })
    assert.equal(
      development.logs().some((l) => l.level === 40),
      false,
    )
  })
})
