import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { GovMetrics } from '../../src/metrics/metrics.js'
import type { CapabilityGrant } from '../../src/tokens/capability-claims.js'
import { type MintedToken, TokenService } from '../../src/tokens/token-service.js'
import { DEFAULT_TOKEN_SETTINGS } from '../../src/tokens/token-settings.js'
import {
  captureLogger,
  privateKeyText,
  sampleGrant,
  TestClock,
  TestSecrets,
  tokenCount,
  tokenKit,
} from './token-test-kit.js'

/** The claims a minted token carries, as a tool server decodes them. */
function claimsOf(minted: MintedToken) {
  return decodeJwt(minted.token)
}

/** The token's claims match the grant it was minted for, field by field. */
function assertCarries(minted: MintedToken, grant: CapabilityGrant): void {
  const claims = claimsOf(minted)
  assert.equal(claims.sub, grant.agentId)
  assert.equal(claims.sid, grant.sessionId)
  assert.equal(claims.pipeline, grant.pipeline)
  assert.equal(claims.pipeline_version, grant.pipelineVersion)
  assert.equal(claims.classification, grant.classification)
  assert.deepEqual(claims.tools, grant.tools)
  assert.deepEqual(claims.labels, grant.labels)
  assert.equal(claims.jti, minted.id)
}

describe('capability token reuse within one second (GOV_TOKEN_REUSE=same-second)', () => {
  it('gives the same grant in the same second the same token and jti, counting each as minted', async () => {
    const { tokens, clock, metrics } = await tokenKit()
    const first = await tokens.mint(sampleGrant())
    clock.ms += 999 - (clock.ms % 1000) // the last millisecond of the same second
    const second = await tokens.mint(sampleGrant())
    assert.equal(second.token, first.token)
    assert.equal(second.id, first.id)
    assert.equal(second.expiresAt, first.expiresAt)
    assert.equal((await tokens.verify(second.token)).valid, true)
    assert.equal(await tokenCount(metrics, 'minted'), 2, 'every token handed to a caller counts')
  })

  it('never shares a token between grants that differ in any claim', async () => {
    const { tokens } = await tokenKit()
    const base = sampleGrant()
    const variants: CapabilityGrant[] = [
      base,
      sampleGrant({ agentId: 'agent-2' }),
      sampleGrant({ sessionId: 'sess-43' }),
      sampleGrant({ sessionId: undefined }),
      sampleGrant({ sessionId: 'null' }),
      sampleGrant({ pipeline: 'billing' }),
      sampleGrant({ pipelineVersion: 4 }),
      sampleGrant({ classification: 'restricted' }),
      sampleGrant({ tools: ['search'] }),
      sampleGrant({ tools: [] }),
      sampleGrant({ tools: ['send_email', 'search'] }),
      sampleGrant({ tools: ['search,send_email'] }),
      sampleGrant({ labels: ['pii'] }),
      // Strings that would collide if the parts were only joined with a separator.
      sampleGrant({ agentId: 'agent-1","sess-42' }),
      // Strings that would collide if lengths, counts or an absent session were written ambiguously.
      sampleGrant({ agentId: 'agent-17:sess-42', sessionId: undefined }),
      sampleGrant({ sessionId: '-' }),
      sampleGrant({ sessionId: '' }),
      sampleGrant({ pipeline: 'support3', pipelineVersion: 3 }),
      sampleGrant({ pipeline: 'suppor', pipelineVersion: 33 }),
      sampleGrant({ tools: ['search:11:send_email'] }),
      sampleGrant({ tools: ['search', 'send_email', ''] }),
      sampleGrant({ tools: [], labels: ['search', 'send_email'] }),
      sampleGrant({ labels: ['pii;0'] }),
      sampleGrant({ labels: ['pii', ''] }),
    ]
    const minted = await Promise.all(variants.map((grant) => tokens.mint(grant)))
    assert.equal(new Set(minted.map((m) => m.token)).size, variants.length, 'one token per distinct grant')
    assert.equal(new Set(minted.map((m) => m.id)).size, variants.length, 'one jti per distinct grant')
    for (const [i, grant] of variants.entries()) {
      assertCarries(minted[i] as MintedToken, grant)
      // Asked again in the same second, each grant gets its own token back, never another's.
      const again = await tokens.mint({ ...grant, tools: [...grant.tools], labels: [...grant.labels] })
      assert.equal(again.token, (minted[i] as MintedToken).token)
    }
  })

  it('signs a new token in a new second', async () => {
    const { tokens, clock } = await tokenKit()
    const first = await tokens.mint(sampleGrant())
    clock.ms += 1000 - (clock.ms % 1000) // the first millisecond of the next second
    const next = await tokens.mint(sampleGrant())
    assert.notEqual(next.token, first.token)
    assert.notEqual(next.id, first.id)
    assert.equal((claimsOf(next).iat as number) - (claimsOf(first).iat as number), 1)
    // The earlier second is not remembered either when the clock steps back.
    clock.ms -= 1000
    const back = await tokens.mint(sampleGrant())
    assert.notEqual(back.id, first.id)
  })

  it('signs a new token with the new key after a rotation in the same second', async () => {
    const { tokens } = await tokenKit()
    const before = await tokens.mint(sampleGrant())
    await tokens.rotate()
    const after = await tokens.mint(sampleGrant())
    assert.notEqual(after.kid, before.kid)
    assert.notEqual(after.token, before.token)
    assert.equal(decodeProtectedHeader(after.token).kid, after.kid)
    assert.equal((await tokens.verify(before.token)).valid, true)
    assert.equal((await tokens.verify(after.token)).valid, true)
  })

  it('signs a new token when another replica changed the configured key', async () => {
    const secrets = new TestSecrets()
    secrets.values.set('GOV_TOKEN_SIGNING_KEY', privateKeyText('ed25519-jwk'))
    const { tokens, clock } = await tokenKit({ secrets })
    const before = await tokens.mint(sampleGrant())
    secrets.values.set('GOV_TOKEN_SIGNING_KEY', privateKeyText('p256-jwk'))
    // The key check runs in the background every 10 s; the same grant is asked again right after it.
    clock.advance(11)
    const trigger = await tokens.mint(sampleGrant())
    assert.equal(trigger.kid, before.kid, 'signed before the check noticed the new key')
    await new Promise((resolve) => setTimeout(resolve, 50))
    const after = await tokens.mint(sampleGrant())
    assert.equal(decodeProtectedHeader(after.token).alg, 'ES256')
    assert.notEqual(after.kid, trigger.kid)
    assert.notEqual(after.token, trigger.token, 'same grant, same second, new key: a new token')
  })

  it('hands the same token to concurrent mints of one grant', async () => {
    const { tokens } = await tokenKit()
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.mint(sampleGrant())))
    assert.equal(new Set(all.map((m) => m.token)).size, 1)
  })

  it('keeps at most 4 096 grants per second; further grants are signed every time', async () => {
    const { tokens } = await tokenKit()
    const grants = Array.from({ length: 4_097 }, (_, i) => sampleGrant({ agentId: `agent-${i}` }))
    const first: MintedToken[] = []
    for (const grant of grants) first.push(await tokens.mint(grant))
    assert.equal(new Set(first.map((m) => m.id)).size, grants.length)
    const kept = await tokens.mint(grants[0] as CapabilityGrant)
    assert.equal(kept.id, (first[0] as MintedToken).id, 'the first grants of the second are kept')
    const overflow = await tokens.mint(grants[4_096] as CapabilityGrant)
    assert.notEqual(overflow.id, (first[4_096] as MintedToken).id, 'past the cap nothing more is kept')
    assertCarries(overflow, grants[4_096] as CapabilityGrant)
    assert.equal((await tokens.verify(overflow.token)).valid, true)
  })

  it('signs and does not keep a grant marked not reusable (a session made for one call)', async () => {
    const { tokens, metrics } = await tokenKit()
    const grant = sampleGrant({ sessionId: 'thread:req-1' })
    const a = await tokens.mint(grant, false)
    const b = tokens.mintNow(grant, false)
    assert.ok(b)
    assert.notEqual(b.id, a.id)
    const later = await tokens.mint(grant)
    assert.notEqual(later.id, a.id, 'nothing was kept for it')
    assert.notEqual(later.id, b.id)
    assert.equal((await tokens.mint(grant)).id, later.id, 'a reusable mint of it is kept as usual')
    assert.equal(await tokenCount(metrics, 'minted'), 4)
  })

  it('signs every token afresh with GOV_TOKEN_REUSE=off', async () => {
    const { tokens, metrics } = await tokenKit({ settings: { reuse: 'off' } })
    const a = await tokens.mint(sampleGrant())
    const b = await tokens.mint(sampleGrant())
    assert.notEqual(a.token, b.token)
    assert.notEqual(a.id, b.id)
    assert.deepEqual({ ...claimsOf(a), jti: '' }, { ...claimsOf(b), jti: '' }, 'the same grant otherwise')
    assert.equal(await tokenCount(metrics, 'minted'), 2)
  })
})

describe('TokenService.mintNow', () => {
  it('answers undefined until the key is loaded, then mints without a promise', async () => {
    const { logger } = captureLogger()
    const clock = new TestClock()
    const tokens = new TokenService({
      settings: DEFAULT_TOKEN_SETTINGS,
      secrets: new TestSecrets(),
      metrics: new GovMetrics(),
      logger,
      production: false,
      now: clock.now,
    })
    assert.equal(tokens.mintNow(sampleGrant()), undefined)
    const viaPromise = await tokens.mint(sampleGrant())
    const now = tokens.mintNow(sampleGrant())
    assert.ok(now)
    assert.equal(now.token, viaPromise.token, 'the same grant in the same second')
    const other = tokens.mintNow(sampleGrant({ agentId: 'agent-2' }))
    assert.ok(other)
    assert.equal((await tokens.verify(other.token)).valid, true)
    assertCarries(other, sampleGrant({ agentId: 'agent-2' }))
  })
})
