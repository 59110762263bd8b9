import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { createKv, type KvHandle } from '../../src/kv/create-kv.js'
import { RedisKv } from '../../src/kv/redis-kv.js'
import { describeKvConformance } from './kv-conformance.js'
import { deleteKeys, skipWithoutRedis, TEST_REDIS_URL, uniquePrefix } from './redis-test-env.js'

describe('redis key-value store', { skip: skipWithoutRedis }, () => {
  const url = TEST_REDIS_URL!
  const prefix = uniquePrefix('kv')
  let handle: KvHandle
  let replica: KvHandle

  before(async () => {
    handle = await createKv({ redisUrl: url, prefix })
    replica = await createKv({ redisUrl: url, prefix })
  })

  after(async () => {
    await handle?.close()
    await replica?.close()
    await deleteKeys(url, prefix)
  })

  it('is what createKv builds for a Redis URL, and is healthy', async () => {
    assert.equal(handle.kind, 'redis')
    assert.equal(await handle.healthy(), true)
  })

  describeKvConformance(() => handle.kv)

  it('stores keys under its prefix, with the TTL on the Redis key', async () => {
    await handle.kv.set('visible', 'yes', 60_000)
    const raw = new Redis(url)
    try {
      assert.equal(await raw.get(`${prefix}visible`), 'yes')
      const ttl = await raw.pttl(`${prefix}visible`)
      assert.ok(ttl > 55_000 && ttl <= 60_000, `pttl ${ttl}`)
      assert.equal(await raw.get('visible'), null)
    } finally {
      raw.disconnect()
    }
  })

  it('getOrLock: the value when the read key exists, else takes the lock (NX, with its TTL) or finds it held', async () => {
    const kv = handle.kv
    assert.ok(kv instanceof RedisKv)
    const other = replica.kv as RedisKv
    assert.deepEqual(await kv.getOrLock('gol:kept', 'gol:lock', 'me', 30_000), { locked: true })
    assert.deepEqual(await other.getOrLock('gol:kept', 'gol:lock', 'you', 30_000), { locked: false })
    assert.equal(await kv.get('gol:lock'), 'me', 'the first one holds the lock')
    const raw = new Redis(url)
    try {
      const ttl = await raw.pttl(`${prefix}gol:lock`)
      assert.ok(ttl > 25_000 && ttl <= 30_000, `pttl ${ttl}`)
      await kv.set('gol:kept', 'the answer', 30_000)
      assert.deepEqual(await other.getOrLock('gol:kept', 'gol:lock2', 'you', 30_000), { found: 'the answer' })
      assert.equal(await raw.exists(`${prefix}gol:lock2`), 0, 'no lock taken when the value was found')
      // Without a TTL the lock has none.
      assert.deepEqual(await kv.getOrLock('gol:none', 'gol:lock3', 'me'), { locked: true })
      assert.equal(await raw.pttl(`${prefix}gol:lock3`), -1)
    } finally {
      raw.disconnect()
    }
  })

  it('shares counters between replicas, atomically', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? handle : replica).kv.incr('shared-counter')),
    )
    assert.equal(new Set(results).size, 100)
    assert.equal(Math.max(...results), 100)
    assert.equal(await replica.kv.get('shared-counter'), '100')
  })

  it('keeps two prefixes apart on one Redis', async () => {
    const otherPrefix = uniquePrefix('kv-other')
    const other = await createKv({ redisUrl: url, prefix: otherPrefix })
    try {
      await handle.kv.set('same-name', 'mine')
      assert.equal(await other.kv.get('same-name'), undefined)
    } finally {
      await other.close()
      await deleteKeys(url, otherPrefix)
    }
  })
})
