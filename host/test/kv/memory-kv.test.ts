import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryKv } from '../../src/kv/memory-kv.js'
import { describeKvConformance } from './kv-conformance.js'

describe('memory key-value store', () => {
  const kv = new MemoryKv()
  describeKvConformance(() => kv)

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const small = new MemoryKv({ maxEntries: 3 })
    await small.set('a', '1')
    await small.set('b', '2')
    await small.set('c', '3')
    assert.equal(await small.get('a'), '1') // a is now the most recently used
    await small.set('d', '4')
    assert.equal(await small.get('b'), undefined)
    assert.deepEqual(await Promise.all(['a', 'c', 'd'].map((k) => small.get(k))), ['1', '3', '4'])
  })

  // Like Redis, an entry lives through its last millisecond and is gone after it.
  it('expires by the injected clock, to the millisecond', async () => {
    let now = 1_000
    const kv = new MemoryKv({ now: () => now })
    await kv.set('s', 'v', 500)
    await kv.incr('n', 1, 500)
    now += 500
    assert.equal(await kv.get('s'), 'v')
    assert.equal(await kv.incr('n', 1, 10_000), 2)
    now += 1
    assert.equal(await kv.get('s'), undefined)
    assert.equal(await kv.get('n'), undefined)
  })

  // A key written once with a short TTL and never read again (a flight's result) must not
  // stay until maxEntries is reached: that held every answer of the last 100 000 calls.
  it('sweeps expired entries that are never read again, within a bounded number of writes', async () => {
    let now = 1_000
    const kv = new MemoryKv({ now: () => now })
    for (let i = 0; i < 20_000; i++) {
      await kv.set(`once:${i}`, 'x'.repeat(100), 5_000)
      now += 1 // 1 000 writes a second: about 5 000 live at any time
    }
    assert.ok(kv.size <= 5_000 + 2_048, `held ${kv.size} entries, at most ~5 000 are live`)
    assert.equal(await kv.get('once:19999'), 'x'.repeat(100))
    assert.equal(await kv.get('once:0'), undefined)
  })
})
