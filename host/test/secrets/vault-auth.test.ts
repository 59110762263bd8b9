import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { VaultAuth } from '../../src/secrets/vault-auth.js'
import { VaultClient } from '../../src/secrets/vault-client.js'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { readVaultSettings } from '../../src/secrets/vault-settings.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { captureLogger, makeSource, testClock, vaultEnv } from './vault-fixture.js'

function makeAuth(env: NodeJS.ProcessEnv, now?: () => number, renewInBackground = false) {
  const { logger, warnings } = captureLogger()
  const settings = readVaultSettings(env)
  const auth = new VaultAuth({ client: new VaultClient(settings), settings, logger, now, renewInBackground })
  return { auth, warnings }
}

describe('Vault auth: workload JWT first, static token fallback', () => {
  let fake: FakeVault
  before(async () => {
    fake = await FakeVault.start()
    fake.putSecret('AUTH_API_KEY', 'v')
  })
  after(() => fake.close())

  it('logs in with the workload JWT through POST /v1/auth/jwt/login and reads with that token', async () => {
    const { source, auth } = makeSource(vaultEnv(fake))
    const logins = fake.count('/v1/auth/jwt/login')
    assert.equal(await source.get('AUTH_API_KEY'), 'v')
    assert.equal(auth.method, 'jwt')
    assert.equal(fake.count('/v1/auth/jwt/login'), logins + 1)
    assert.equal(fake.requests.at(-1)?.token, 'jwt-login')
  })

  it('uses VAULT_AUTH_PATH as the JWT auth mount', async () => {
    const other = await FakeVault.start({ authPath: 'k8s-jwt' })
    try {
      const { auth } = makeAuth(vaultEnv(other, { VAULT_AUTH_PATH: 'k8s-jwt', VAULT_TOKEN: '' }))
      await auth.token()
      assert.equal(other.count('/v1/auth/k8s-jwt/login'), 1)
    } finally {
      await other.close()
    }
  })

  it('falls back to VAULT_TOKEN (checked with lookup-self) when the JWT is refused, with a warning', async () => {
    const { auth, warnings } = makeAuth(vaultEnv(fake, { VAULT_ROLE: 'no-such-role' }))
    const lookups = fake.count('/v1/auth/token/lookup-self')
    assert.equal(await auth.token(), fake.staticToken)
    assert.equal(auth.method, 'token')
    assert.equal(fake.count('/v1/auth/token/lookup-self'), lookups + 1)
    assert.equal(warnings().length, 1)
  })

  it('falls back to VAULT_TOKEN when the JWT file is missing', async () => {
    const { auth } = makeAuth(vaultEnv(fake, { VAULT_JWT_PATH: `${fake.jwtPath}.missing` }))
    assert.equal(await auth.token(), fake.staticToken)
  })

  it('uses only VAULT_TOKEN when no JWT login is configured', async () => {
    const logins = fake.count('/v1/auth/jwt/login')
    const { auth } = makeAuth(vaultEnv(fake, { VAULT_ROLE: '', VAULT_JWT_PATH: '' }))
    assert.equal(await auth.token(), fake.staticToken)
    assert.equal(fake.count('/v1/auth/jwt/login'), logins)
  })

  it('fails with GOV_ERR_VAULT_AUTH_FAILED naming both attempts when JWT and token are refused', async () => {
    const { auth } = makeAuth(vaultEnv(fake, { VAULT_ROLE: 'no-such-role', VAULT_TOKEN: 'hvs.wrong' }))
    await assert.rejects(
      auth.token(),
      (err: { code: string; status: number; details: { attempts: object[] } }) => {
        assert.equal(err.code, VaultErrorCodes.AUTH_FAILED)
        assert.equal(err.status, 503)
        assert.deepEqual(
          err.details.attempts.map((a) => ({ ...a, message: undefined })),
          [
            { method: 'jwt', kind: 'rejected', status: 400, message: undefined },
            { method: 'token', kind: 'denied', status: 403, message: undefined },
          ],
        )
        return true
      },
    )
  })

  it('fails with GOV_ERR_VAULT_UNAVAILABLE when Vault cannot be reached to log in', async () => {
    const other = await FakeVault.start()
    const { auth } = makeAuth(vaultEnv(other))
    await other.down()
    await assert.rejects(auth.token(), { code: VaultErrorCodes.UNAVAILABLE })
    await other.close()
  })

  it('renews (renew-self) before the token expires, and logs in again once renewal stops extending it', async () => {
    const clock = testClock()
    const short = await FakeVault.start({
      now: clock.now,
      loginTtlSeconds: 60,
      maxTtlSeconds: 90,
      jwtTtlSeconds: 3600,
    })
    try {
      const { auth } = makeAuth(vaultEnv(short), clock.now)
      const first = await auth.token()
      clock.advance(39_000)
      assert.equal(await auth.token(), first, 'before 2/3 of the lifetime: no Vault call')
      assert.equal(short.count('/v1/auth/token/renew-self'), 0)

      clock.advance(2_000) // 41 s of 60
      assert.equal(await auth.token(), first, 'renewed, same token')
      assert.equal(short.count('/v1/auth/token/renew-self'), 1)
      assert.equal(short.logins, 1)

      // Renewed to 49 s (max TTL 90 s); at 2/3 of that it renews once more, gets only 16 s, and logs in.
      clock.advance(33_000)
      const second = await auth.token()
      assert.equal(short.count('/v1/auth/token/renew-self'), 2)
      assert.equal(short.logins, 2)
      assert.notEqual(second, first)
    } finally {
      await short.close()
    }
  })

  it('renews a static token that has a TTL', async () => {
    const clock = testClock()
    const other = await FakeVault.start({ now: clock.now, staticTokenTtlSeconds: 60 })
    try {
      const { auth } = makeAuth(vaultEnv(other, { VAULT_ROLE: '', VAULT_JWT_PATH: '' }), clock.now)
      await auth.token()
      clock.advance(45_000)
      assert.equal(await auth.token(), other.staticToken)
      assert.equal(other.count('/v1/auth/token/renew-self'), 1)
      clock.advance(45_000)
      assert.equal(await auth.token(), other.staticToken, 'the renewal extended it past its first 60 s')
    } finally {
      await other.close()
    }
  })

  it('keeps a still-valid token when Vault is down at refresh time', async () => {
    const clock = testClock()
    const other = await FakeVault.start({ now: clock.now, loginTtlSeconds: 60 })
    const { auth, warnings } = makeAuth(vaultEnv(other), clock.now)
    const token = await auth.token()
    clock.advance(50_000)
    await other.down()
    assert.equal(await auth.token(), token)
    assert.ok(warnings().length >= 1)
    clock.advance(11_000) // now expired
    await assert.rejects(auth.token(), { code: VaultErrorCodes.UNAVAILABLE })
    await other.close()
  })

  it('renews in the background before expiry when no secret is read', async () => {
    const other = await FakeVault.start({ loginTtlSeconds: 1 })
    const { auth } = makeAuth(vaultEnv(other), undefined, true)
    try {
      await auth.token()
      await new Promise((r) => setTimeout(r, 1_000))
      assert.ok(other.count('/v1/auth/token/renew-self') >= 1, 'renew-self was called by the timer')
    } finally {
      auth.close()
      await other.close()
    }
  })
})
