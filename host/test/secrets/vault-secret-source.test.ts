import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { SECRET_CACHE_DEFAULTS } from '../../src/secrets/vault-secret-source.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { makeSource, testClock, vaultEnv } from './vault-fixture.js'

const MINUTE = 60_000

describe('Vault secret source: reads and cache', () => {
  let fake: FakeVault
  before(async () => {
    fake = await FakeVault.start()
  })
  after(() => fake.close())

  it('reads a secret from KV v2 at <mount>/data/<path>/<NAME>, field value', async () => {
    fake.putSecret('OPENAI_API_KEY', 'sk-from-vault')
    const { source } = makeSource(vaultEnv(fake))
    assert.equal(source.kind, 'vault')
    assert.equal(await source.get('OPENAI_API_KEY'), 'sk-from-vault')
    assert.equal(fake.kvReads('gov/OPENAI_API_KEY'), 1)
    source.close()
  })

  it('honours VAULT_KV_MOUNT and VAULT_SECRET_PATH', async () => {
    const other = await FakeVault.start({ mount: 'kv' })
    try {
      other.write('teams/gov/REDIS_PASSWORD', { value: 'pw-1' })
      const { source } = makeSource(vaultEnv(other, { VAULT_KV_MOUNT: 'kv', VAULT_SECRET_PATH: 'teams/gov' }))
      assert.equal(await source.get('REDIS_PASSWORD'), 'pw-1')
      assert.equal(other.kvReads('teams/gov/REDIS_PASSWORD'), 1)
    } finally {
      await other.close()
    }
  })

  it('reads plain configuration from the environment without a Vault call', async () => {
    const env = vaultEnv(fake, { GOV_PORT: '8080', LOG_LEVEL: 'debug', OPENAI_BASE_URL: 'http://x' })
    const { source } = makeSource(env)
    const before = fake.requests.length
    assert.equal(await source.get('GOV_PORT'), '8080')
    assert.equal(await source.get('LOG_LEVEL'), 'debug')
    assert.equal(await source.get('OPENAI_BASE_URL'), 'http://x')
    assert.equal(await source.get('GOV_UNSET_SETTING'), undefined)
    assert.equal(fake.requests.length, before, 'no request of any kind, not even a login')
  })

  it('reads known secret names without a secret suffix from Vault, not from the environment', async () => {
    fake.putSecret('DATABASE_URL', 'postgres://vault')
    const { source } = makeSource(vaultEnv(fake, { DATABASE_URL: 'postgres://env' }))
    assert.equal(await source.get('DATABASE_URL'), 'postgres://vault')
    assert.equal(fake.kvReads('gov/DATABASE_URL'), 1)
  })

  it('answers undefined for a secret Vault does not hold, and caches that answer', async () => {
    const { source } = makeSource(vaultEnv(fake))
    assert.equal(await source.get('ABSENT_API_KEY'), undefined)
    assert.equal(await source.get('ABSENT_API_KEY'), undefined)
    assert.equal(fake.kvReads('gov/ABSENT_API_KEY'), 1)
  })

  it('refuses a KV entry without a string field value with a coded error', async () => {
    fake.write('gov/ODD_SECRET', { key: 'no value field' })
    const { source } = makeSource(vaultEnv(fake))
    await assert.rejects(source.get('ODD_SECRET'), { code: VaultErrorCodes.SECRET_MALFORMED })
  })

  it('refuses names that cannot be configuration names before they reach a Vault path', async () => {
    const { source } = makeSource(vaultEnv(fake))
    const before = fake.requests.length
    await assert.rejects(source.get('../../sys/ROOT_TOKEN'), (err: GovError) => {
      assert.equal(err.code, VaultErrorCodes.NAME_INVALID)
      assert.equal(err.status, 400)
      return true
    })
    assert.equal(fake.requests.length, before)
  })

  it('serves a cached value for the lifetime and re-reads after it, so a rotation lands', async () => {
    const clock = testClock()
    fake.putSecret('ROTATING_API_KEY', 'v1')
    // random 0.5 → no jitter: exactly 5 minutes.
    const { source } = makeSource(vaultEnv(fake), { now: clock.now, random: () => 0.5 })
    assert.equal(await source.get('ROTATING_API_KEY'), 'v1')
    fake.putSecret('ROTATING_API_KEY', 'v2')
    clock.advance(5 * MINUTE - 1)
    assert.equal(await source.get('ROTATING_API_KEY'), 'v1', 'still inside the lifetime')
    assert.equal(fake.kvReads('gov/ROTATING_API_KEY'), 1)
    clock.advance(2)
    assert.equal(await source.get('ROTATING_API_KEY'), 'v2', 'lifetime over: read again')
    assert.equal(fake.kvReads('gov/ROTATING_API_KEY'), 2)
  })

  it('jitters each entry lifetime by ±10 % around 5 minutes', async () => {
    fake.putSecret('JITTER_LOW_SECRET', 'a')
    fake.putSecret('JITTER_HIGH_SECRET', 'b')
    const low = testClock()
    const high = testClock()
    const lowSource = makeSource(vaultEnv(fake), { now: low.now, random: () => 0 }).source
    const highSource = makeSource(vaultEnv(fake), { now: high.now, random: () => 0.999999 }).source
    await lowSource.get('JITTER_LOW_SECRET')
    await highSource.get('JITTER_HIGH_SECRET')

    // random 0 → 270 s.
    low.advance(270_000 - 1)
    await lowSource.get('JITTER_LOW_SECRET')
    assert.equal(fake.kvReads('gov/JITTER_LOW_SECRET'), 1)
    low.advance(2)
    await lowSource.get('JITTER_LOW_SECRET')
    assert.equal(fake.kvReads('gov/JITTER_LOW_SECRET'), 2)

    // random → 1: 330 s; still cached at 329.9 s, well past the unjittered 300 s.
    high.advance(329_900)
    await highSource.get('JITTER_HIGH_SECRET')
    assert.equal(fake.kvReads('gov/JITTER_HIGH_SECRET'), 1)
    high.advance(200)
    await highSource.get('JITTER_HIGH_SECRET')
    assert.equal(fake.kvReads('gov/JITTER_HIGH_SECRET'), 2)
  })

  it('gives different entries different lifetimes with the default random source', async () => {
    const clock = testClock()
    const { source } = makeSource(vaultEnv(fake), { now: clock.now })
    const names = Array.from({ length: 20 }, (_, i) => `SPREAD_${i}_SECRET`)
    for (const name of names) await source.get(name)
    const before = fake.kvReads()
    // At 5 min exactly, the entries that drew a shorter lifetime expired and the others did not.
    clock.advance(5 * MINUTE)
    for (const name of names) await source.get(name)
    const reread = fake.kvReads() - before
    assert.ok(reread > 0 && reread < names.length, `re-read ${reread} of ${names.length}`)
  })

  it('holds at most 500 entries and evicts the least recently used', async () => {
    assert.equal(SECRET_CACHE_DEFAULTS.max, 500)
    const { source } = makeSource(vaultEnv(fake))
    const names = Array.from({ length: 501 }, (_, i) => `LRU_${i}_SECRET`)
    for (const name of names.slice(0, 500)) await source.get(name)
    assert.equal(source.cachedCount, 500)
    await source.get(names[0]) // used again: now the most recent; LRU_1 is the oldest
    await source.get(names[500])
    assert.equal(source.cachedCount, 500)
    const before = fake.kvReads()
    await source.get(names[0])
    assert.equal(fake.kvReads(), before, 'a recently used entry stays')
    await source.get(names[1])
    assert.equal(fake.kvReads(), before + 1, 'the least recently used entry was evicted')
  })

  it('re-reads an invalidated secret on next use, and only that one', async () => {
    fake.putSecret('INVALIDATE_ME_TOKEN', 'old')
    fake.putSecret('KEEP_ME_TOKEN', 'kept')
    const { source } = makeSource(vaultEnv(fake))
    assert.equal(await source.get('INVALIDATE_ME_TOKEN'), 'old')
    await source.get('KEEP_ME_TOKEN')
    fake.putSecret('INVALIDATE_ME_TOKEN', 'new')
    fake.putSecret('KEEP_ME_TOKEN', 'changed')
    source.invalidate('INVALIDATE_ME_TOKEN')
    assert.equal(await source.get('INVALIDATE_ME_TOKEN'), 'new')
    assert.equal(await source.get('INVALIDATE_ME_TOKEN'), 'new')
    assert.equal(fake.kvReads('gov/INVALIDATE_ME_TOKEN'), 2, 'one re-read, then cached again')
    assert.equal(await source.get('KEEP_ME_TOKEN'), 'kept')
  })

  it('reads each secret once when many calls ask at the same time', async () => {
    fake.putSecret('BURST_API_KEY', 'burst')
    const { source } = makeSource(vaultEnv(fake))
    const values = await Promise.all(Array.from({ length: 20 }, () => source.get('BURST_API_KEY')))
    assert.deepEqual(new Set(values), new Set(['burst']))
    assert.equal(fake.kvReads('gov/BURST_API_KEY'), 1)
  })
})
