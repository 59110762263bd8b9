import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { after, afterEach, before, describe, it } from 'node:test'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { makeSource, testClock, vaultEnv } from './vault-fixture.js'

const LIFETIME = 5 * 60_000
const RETRY = 5_000

/** A source that has cached `name` = `value` and whose lifetime has just run out. */
async function staleSource(fake: FakeVault, name: string, value: string, env: NodeJS.ProcessEnv = {}) {
  const clock = testClock()
  fake.putSecret(name, value)
  const made = makeSource(vaultEnv(fake, env), { now: clock.now, random: () => 0.5, retryMs: RETRY })
  assert.equal(await made.source.get(name), value)
  clock.advance(LIFETIME + 1)
  return { ...made, clock }
}

describe('Vault faults: stale on error, never crash', () => {
  let fake: FakeVault
  before(async () => {
    fake = await FakeVault.start()
  })
  afterEach(async () => {
    fake.fault = 'none'
    await fake.up()
  })
  after(() => fake.close())

  it('down (closed port): serves the last cached value, logs a warning, leaves Vault alone for the back-off', async () => {
    const { source, clock, warnings } = await staleSource(fake, 'DOWN_API_KEY', 'cached-1')
    fake.putSecret('DOWN_API_KEY', 'fresh-2')
    await fake.down()
    assert.equal(await source.get('DOWN_API_KEY'), 'cached-1')
    const warning = warnings().find((w) => w.secret === 'DOWN_API_KEY')
    assert.ok(warning, 'a warning names the secret')
    assert.equal(warning.code, VaultErrorCodes.UNAVAILABLE)
    assert.deepEqual(source.problems(), [
      { name: 'DOWN_API_KEY', code: VaultErrorCodes.UNAVAILABLE, stale: true },
    ])

    // Inside the back-off the cache answers at once; no connection is even tried.
    const started = performance.now()
    assert.equal(await source.get('DOWN_API_KEY'), 'cached-1')
    assert.ok(performance.now() - started < 100)
    assert.equal(warnings().length, 1, 'one warning per failed attempt, not per read')

    await fake.up()
    assert.equal(await source.get('DOWN_API_KEY'), 'cached-1', 'still backing off')
    clock.advance(RETRY + 1)
    assert.equal(await source.get('DOWN_API_KEY'), 'fresh-2', 'back-off over: Vault is read again')
    assert.deepEqual(source.problems(), [])
  })

  it('500: serves the last cached value and logs a warning', async () => {
    const { source, warnings } = await staleSource(fake, 'FIVE_HUNDRED_SECRET', 'cached')
    fake.fault = '500'
    const reads = fake.kvReads('gov/FIVE_HUNDRED_SECRET')
    assert.equal(await source.get('FIVE_HUNDRED_SECRET'), 'cached')
    assert.equal(fake.kvReads('gov/FIVE_HUNDRED_SECRET'), reads + 1, 'Vault was asked and failed')
    assert.equal(warnings().at(-1)?.code, VaultErrorCodes.UNAVAILABLE)
  })

  it('slow (beyond the client timeout): gives up after VAULT_TIMEOUT_MS and serves the cached value', async () => {
    const { source, warnings } = await staleSource(fake, 'SLOW_PASSWORD', 'cached', {
      VAULT_TIMEOUT_MS: '300',
    })
    fake.fault = 'slow'
    fake.slowMs = 3_000
    const started = performance.now()
    assert.equal(await source.get('SLOW_PASSWORD'), 'cached')
    const ms = performance.now() - started
    assert.ok(ms >= 250 && ms < 2_000, `answered after ${Math.round(ms)} ms (timeout 300 ms)`)
    assert.equal(warnings().at(-1)?.code, VaultErrorCodes.UNAVAILABLE)
  })

  it('fails with GOV_ERR_VAULT_UNAVAILABLE when nothing is cached', async () => {
    const { source } = makeSource(vaultEnv(fake))
    fake.putSecret('NEVER_READ_API_KEY', 'x')
    await fake.down()
    await assert.rejects(source.get('NEVER_READ_API_KEY'), (err: { code: string; status: number }) => {
      assert.equal(err.code, VaultErrorCodes.UNAVAILABLE)
      assert.equal(err.status, 503)
      return true
    })
    assert.deepEqual(source.problems(), [
      { name: 'NEVER_READ_API_KEY', code: VaultErrorCodes.UNAVAILABLE, stale: false },
    ])
    // Concurrent readers of a failing secret all get the error, none a silent undefined.
    const results = await Promise.allSettled([
      source.get('NEVER_READ_API_KEY'),
      source.get('NEVER_READ_API_KEY'),
    ])
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    )
  })

  it('keeps the cached value as fallback when an invalidated secret cannot be re-read', async () => {
    fake.putSecret('INVALIDATED_DOWN_TOKEN', 'kept')
    const clock = testClock()
    const { source } = makeSource(vaultEnv(fake), { now: clock.now, retryMs: RETRY })
    await source.get('INVALIDATED_DOWN_TOKEN')
    fake.putSecret('INVALIDATED_DOWN_TOKEN', 'rotated')
    await fake.down()
    source.invalidate('INVALIDATED_DOWN_TOKEN')
    assert.equal(await source.get('INVALIDATED_DOWN_TOKEN'), 'kept')
    await fake.up()
    clock.advance(RETRY + 1)
    assert.equal(await source.get('INVALIDATED_DOWN_TOKEN'), 'rotated', 'the invalidation still holds')
  })

  it('an expired token is replaced by a fresh login without the caller noticing', async () => {
    fake.putSecret('EXPIRY_API_KEY', 'v')
    const { source, auth } = makeSource(vaultEnv(fake))
    await source.get('EXPIRY_API_KEY')
    assert.equal(auth.method, 'jwt')
    const logins = fake.logins
    fake.expireToken(fake.issuedTokens().at(-1))
    source.invalidate('EXPIRY_API_KEY')
    assert.equal(await source.get('EXPIRY_API_KEY'), 'v')
    assert.equal(fake.logins, logins + 1)
  })

  it('a revoked token is replaced by a fresh login', async () => {
    fake.putSecret('REVOKE_API_KEY', 'v')
    const { source } = makeSource(vaultEnv(fake))
    await source.get('REVOKE_API_KEY')
    const logins = fake.logins
    fake.revokeToken(fake.issuedTokens().at(-1))
    source.invalidate('REVOKE_API_KEY')
    assert.equal(await source.get('REVOKE_API_KEY'), 'v')
    assert.equal(fake.logins, logins + 1)
  })

  it('rotated JWT: the next login reads the new JWT from disk; the old one is refused', async () => {
    fake.putSecret('ROTATED_JWT_API_KEY', 'v')
    const { source, auth } = makeSource(vaultEnv(fake, { VAULT_TOKEN: '' }))
    await source.get('ROTATED_JWT_API_KEY')
    const oldJwt = readFileSync(fake.jwtPath, 'utf8').trim()
    fake.rotateJwt()
    fake.revokeToken(fake.issuedTokens().at(-1))
    source.invalidate('ROTATED_JWT_API_KEY')
    assert.equal(await source.get('ROTATED_JWT_API_KEY'), 'v')
    assert.equal(auth.method, 'jwt')
    const res = await fetch(`${fake.url}/v1/auth/jwt/login`, {
      method: 'POST',
      body: JSON.stringify({ role: fake.role, jwt: oldJwt }),
    })
    assert.equal(res.status, 400)
    assert.ok(Array.isArray(((await res.json()) as { errors: unknown }).errors))
  })

  it('revoked everywhere with a value cached: serves it; with none: GOV_ERR_VAULT_AUTH_FAILED', async () => {
    const own = await FakeVault.start()
    try {
      const { source, clock, warnings } = await staleSource(own, 'LOCKED_OUT_API_KEY', 'cached')
      own.putSecret('UNCACHED_API_KEY', 'x')
      // Every token revoked (the static one too), and the JWT on disk is one Vault does not accept.
      own.revokeToken()
      writeFileSync(own.jwtPath, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.forged\n')
      assert.equal(await source.get('LOCKED_OUT_API_KEY'), 'cached')
      assert.equal(warnings().at(-1)?.code, VaultErrorCodes.AUTH_FAILED)
      clock.advance(RETRY + 1)
      await assert.rejects(
        source.get('UNCACHED_API_KEY'),
        (err: { code: string; details: { attempts: unknown[] } }) => {
          assert.equal(err.code, VaultErrorCodes.AUTH_FAILED)
          assert.deepEqual(
            err.details.attempts.map((a) => (a as { method: string }).method),
            ['jwt', 'token'],
          )
          return true
        },
      )
    } finally {
      await own.close()
    }
  })
})
