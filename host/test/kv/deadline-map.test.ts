/**
 * DeadlineMap: an entry is answered until its deadline and dropped when read
 * after it; past the bound the oldest entry goes first; a sweep drops the
 * expired entries at most once per interval; every drop is reported.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type DeadlineEntry, DeadlineMap } from '../../src/kv/deadline-map.js'

/** A map whose drops are listed by key. */
function tracked(options: { ttlMs?: number; max?: number; sweepIntervalMs?: number } = {}) {
  const dropped: string[] = []
  const map = new DeadlineMap<string, number>({
    ttlMs: options.ttlMs ?? 100,
    max: options.max ?? 10,
    ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
    onDrop: (entry: DeadlineEntry<string, number>) => dropped.push(entry.key),
  })
  return { map, dropped }
}

describe('DeadlineMap', () => {
  it('answers an entry until its deadline, then drops it when read', () => {
    const { map, dropped } = tracked({ ttlMs: 100 })
    const entry = map.set('a', 1, 1_000)
    assert.equal(entry.expires, 1_100)
    assert.equal(map.get('a', 1_099), 1)
    assert.equal(map.entry('a', 1_099), entry)
    assert.equal(map.get('a', 1_100), undefined, 'not answered at its deadline')
    assert.equal(map.size, 0)
    assert.deepEqual(dropped, ['a'])
    assert.equal(map.get('missing', 0), undefined)
  })

  it('reads the clock when no time is given', () => {
    const map = new DeadlineMap<string, number>({ ttlMs: 60_000, max: 2 })
    map.set('a', 1)
    assert.equal(map.get('a'), 1)
    const gone = new DeadlineMap<string, number>({ ttlMs: 0, max: 2 })
    gone.set('a', 1)
    assert.equal(gone.get('a'), undefined, 'a TTL of 0 keeps nothing')
  })

  it('keeps entries with an infinite TTL for ever', () => {
    const map = new DeadlineMap<string, number>({ ttlMs: Number.POSITIVE_INFINITY, max: 2 })
    map.set('a', 1, 0)
    assert.equal(map.get('a', Number.MAX_SAFE_INTEGER), 1)
  })

  it('drops the oldest entry past the bound; reads do not refresh an entry', () => {
    const { map, dropped } = tracked({ max: 2 })
    map.set('a', 1, 0)
    map.set('b', 2, 1)
    assert.equal(map.get('a', 2), 1)
    map.set('c', 3, 3)
    assert.deepEqual(dropped, ['a'], 'the first set goes first even though it was read last')
    assert.equal(map.get('a', 4), undefined)
    assert.equal(map.get('b', 4), 2)
    assert.equal(map.get('c', 4), 3)
    assert.equal(map.size, 2)
  })

  it('replaces an entry under the same key as the newest, without evicting another', () => {
    const { map, dropped } = tracked({ max: 2, ttlMs: 100 })
    const first = map.set('a', 1, 0)
    map.set('b', 2, 10)
    const second = map.set('a', 11, 50)
    assert.deepEqual(dropped, ['a'], 'the replaced entry is reported')
    assert.equal(second.expires, 150, 'a new deadline')
    assert.equal(map.get('b', 60), 2, 'nothing else was evicted')
    map.drop(first)
    assert.equal(map.get('a', 60), 11, 'dropping the replaced entry leaves its successor')
    map.set('c', 3, 70)
    assert.equal(map.get('b', 80), undefined, 'b is now the oldest')
    assert.equal(map.get('a', 80), 11)
  })

  it('deletes and drops entries, and reports each once', () => {
    const { map, dropped } = tracked()
    const a = map.set('a', 1, 0)
    map.set('b', 2, 0)
    assert.equal(map.delete('b'), true)
    assert.equal(map.delete('b'), false)
    map.drop(a)
    map.drop(a)
    assert.equal(map.size, 0)
    assert.deepEqual(dropped, ['b', 'a'])
  })

  it('clears every entry and reports each', () => {
    const { map, dropped } = tracked()
    map.set('a', 1, 0)
    map.set('b', 2, 0)
    map.clear()
    assert.equal(map.size, 0)
    assert.deepEqual(dropped, ['a', 'b'])
  })

  it('sweeps the expired entries, the first ones, and keeps the rest', () => {
    const { map, dropped } = tracked({ ttlMs: 100 })
    map.set('a', 1, 0)
    map.set('b', 2, 50)
    map.set('c', 3, 120)
    map.sweep(150)
    assert.deepEqual(dropped, ['a', 'b'])
    assert.equal(map.size, 1)
    assert.equal(map.get('c', 150), 3)
  })

  it('sweeps when due at most once per interval, and never without an interval', () => {
    const { map, dropped } = tracked({ ttlMs: 100, sweepIntervalMs: 1_000 })
    map.set('a', 1, 0)
    map.sweepDue(50)
    assert.deepEqual(dropped, [], 'the first sweep finds nothing expired')
    map.sweepDue(500)
    assert.deepEqual(dropped, [], 'not due until 1 050')
    map.sweepDue(1_050)
    assert.deepEqual(dropped, ['a'])

    const never = tracked({ ttlMs: 100 })
    never.map.set('a', 1, 0)
    never.map.sweepDue(10_000)
    assert.equal(never.map.size, 1, 'no interval: entries go when read, evicted or deleted')
  })
})
