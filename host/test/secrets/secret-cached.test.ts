/**
 * `SecretSource.cached`: the hot path's answer without a promise. It must give
 * what `get` would give right now, or undefined (then the caller asks `get`):
 * never a value past its lifetime, never one an invalidation asked to re-read,
 * and without dropping the stale value `get` serves while Vault is down.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { EnvSecretSource } from '../../src/secrets/secret-source.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { makeSource, testClock, vaultEnv } from './vault-fixture.js'

const LIFETIME = 5 * 60_000

describe('EnvSecretSource.cached', () => {
  it('answers as get does: the value, or undefined when unset or empty', async () => {
    const source = new EnvSecretSource({ OPENAI_API_KEY: 'sk-1', EMPTY_API_KEY: '' })
    for (const name of ['OPENAI_API_KEY', 'EMPTY_API_KEY', 'MISSING_API_KEY']) {
      assert.equal(source.cached(name), await source.get(name), name)
    }
    assert.equal(source.cached('OPENAI_API_KEY'), 'sk-1')
  })
})

describe('VaultSecretSource.cached', () => {
  let fake: FakeVault
  before(async () => {
    fake = await FakeVault.start()
  })
  afterEach(async () => {
    fake.fault = 'none'
    await fake.up()
  })
  after(() => fake.close())

  it('knows nothing before the first read, and never asks Vault itself', () => {
    fake.putSecret('FIRST_API_KEY', 'v1')
    const { source } = makeSource(vaultEnv(fake))
    const before = fake.requests.length
    assert.equal(source.cached('FIRST_API_KEY'), undefined)
    assert.equal(source.cached('../../sys/ROOT_TOKEN'), undefined)
    assert.equal(fake.requests.length, before, 'no login, no read')
    source.close()
  })

  it('answers a fresh entry until its lifetime ends, then leaves the re-read to get', async () => {
    const clock = testClock()
    fake.putSecret('FRESH_API_KEY', 'v1')
    const { source } = makeSource(vaultEnv(fake), { now: clock.now, random: () => 0.5 })
    assert.equal(await source.get('FRESH_API_KEY'), 'v1')
    fake.putSecret('FRESH_API_KEY', 'v2')
    clock.advance(LIFETIME - 1)
    assert.equal(source.cached('FRESH_API_KEY'), 'v1', 'inside the lifetime, as get would answer')
    clock.advance(2)
    assert.equal(source.cached('FRESH_API_KEY'), undefined, 'expired: not served without a re-read')
    assert.equal(await source.get('FRESH_API_KEY'), 'v2')
    assert.equal(source.cached('FRESH_API_KEY'), 'v2')
    assert.equal(fake.kvReads('gov/FRESH_API_KEY'), 2)
    source.close()
  })

  it('keeps an expired entry as the fallback get serves while Vault is down', async () => {
    const clock = testClock()
    fake.putSecret('FALLBACK_API_KEY', 'kept')
    const { source } = makeSource(vaultEnv(fake), { now: clock.now, random: () => 0.5 })
    assert.equal(await source.get('FALLBACK_API_KEY'), 'kept')
    clock.advance(LIFETIME + 1)
    assert.equal(source.cached('FALLBACK_API_KEY'), undefined)
    await fake.down()
    assert.equal(await source.get('FALLBACK_API_KEY'), 'kept', 'the stale value was not dropped')
    assert.equal(source.cached('FALLBACK_API_KEY'), undefined, 'still stale: every call goes through get')
    source.close()
  })

  it('answers nothing for an invalidated name until a re-read succeeded', async () => {
    fake.putSecret('ROTATED_API_KEY', 'old')
    const { source } = makeSource(vaultEnv(fake))
    assert.equal(await source.get('ROTATED_API_KEY'), 'old')
    fake.putSecret('ROTATED_API_KEY', 'new')
    source.invalidate('ROTATED_API_KEY')
    assert.equal(source.cached('ROTATED_API_KEY'), undefined)
    assert.equal(await source.get('ROTATED_API_KEY'), 'new')
    assert.equal(source.cached('ROTATED_API_KEY'), 'new')
    source.close()
  })

  it('answers undefined for a secret Vault does not hold, and plain settings from the environment', async () => {
    const { source } = makeSource(vaultEnv(fake, { OPENAI_BASE_URL: 'http://x' }))
    assert.equal(await source.get('NOT_THERE_API_KEY'), undefined)
    assert.equal(source.cached('NOT_THERE_API_KEY'), undefined)
    assert.equal(source.cached('OPENAI_BASE_URL'), 'http://x')
    assert.equal(source.cached('GOV_UNSET_SETTING'), undefined)
    source.close()
  })
})
