import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TextCache, WHOLE_TEXT_MAX } from '../src/text-cache.js'

/** A copy that is a new string object, as a parsed request body gives. */
const fresh = (text: string): string => JSON.parse(JSON.stringify(text)) as string

describe('TextCache', () => {
  it('finds a text by its content, not by the string object', () => {
    const cache = new TextCache<number>({ max: 10 })
    const text = 'Please summarise the quarterly report for the board. '.repeat(20)
    cache.set(text, 1)
    assert.equal(cache.get(fresh(text)), 1)
    assert.equal(cache.get(`${text}.`), undefined)
  })

  it('never answers for a different text with the same pre-key (same length, same sampled characters)', () => {
    const cache = new TextCache<string>({ max: 10 })
    // 2 000 units, 48 samples: position 1 is never sampled, so these two share a pre-key.
    const a = `a${'x'.repeat(1998)}a`
    const b = `ab${'x'.repeat(1997)}a`
    assert.equal(a.length, b.length)
    assert.notEqual(a, b)
    cache.set(a, 'A')
    assert.equal(cache.get(fresh(b)), undefined)
    cache.set(b, 'B')
    assert.equal(cache.get(fresh(a)), 'A')
    assert.equal(cache.get(fresh(b)), 'B')
    assert.equal(cache.size, 1, 'one bucket holds both')
  })

  it('samples positions ⌊k·(n−1)/47⌋: first and last character, evenly spread, no others', () => {
    // Two texts differing at one position share a bucket (size 1) exactly when it is not sampled.
    const buckets = (a: string, b: string): number => {
      const cache = new TextCache<number>({ max: 10 })
      cache.set(a, 1)
      cache.set(b, 2)
      assert.equal(cache.get(fresh(a)), 1)
      assert.equal(cache.get(fresh(b)), 2)
      return cache.size
    }
    for (const n of [49, 50, 95, 1000, 2001, WHOLE_TEXT_MAX]) {
      const base = 'x'.repeat(n)
      const sampled = new Set(Array.from({ length: 48 }, (_, k) => Math.floor((k * (n - 1)) / 47)))
      assert.ok(sampled.has(0) && sampled.has(n - 1))
      // Every position of the shorter texts; around each sampled one of the longest.
      const positions =
        n <= 2001 ? Array.from({ length: n }, (_, i) => i) : [...sampled].flatMap((p) => [p - 1, p, p + 1])
      for (const at of positions.filter((p) => p >= 0 && p < n)) {
        const changed = `${base.slice(0, at)}y${base.slice(at + 1)}`
        assert.equal(buckets(base, changed), sampled.has(at) ? 2 : 1, `n ${n}, position ${at}`)
      }
    }
    // Up to 48 units every character counts.
    assert.equal(buckets('abc', 'abd'), 2)
  })

  it('keeps at most four texts per pre-key and drops the oldest', () => {
    const cache = new TextCache<number>({ max: 10 })
    const texts = [0, 1, 2, 3, 4, 5].map((i) => `a${String.fromCharCode(98 + i)}${'x'.repeat(1997)}a`)
    texts.forEach((t, i) => {
      cache.set(t, i)
    })
    assert.equal(cache.get(fresh(texts[0]!)), undefined)
    assert.equal(cache.get(fresh(texts[1]!)), undefined)
    for (let i = 2; i < 6; i++) assert.equal(cache.get(fresh(texts[i]!)), i)
  })

  it('separates tags and short texts', () => {
    const cache = new TextCache<string>({ max: 10 })
    cache.set('hi', 'direct', 0)
    cache.set('hi', 'tool', 1)
    assert.equal(cache.get(fresh('hi'), 0), 'direct')
    assert.equal(cache.get(fresh('hi'), 1), 'tool')
    assert.equal(cache.get('ih', 0), undefined)
    assert.equal(cache.get('', 0), undefined)
  })

  it('keys texts longer than WHOLE_TEXT_MAX by their hash', () => {
    const cache = new TextCache<number>({ max: 10 })
    const long = 'y'.repeat(WHOLE_TEXT_MAX + 1)
    cache.set(long, 7)
    assert.equal(cache.get(fresh(long)), 7)
    assert.equal(cache.get(`z${long.slice(1)}`), undefined)
  })

  it('is bounded by entries and by bytes', () => {
    const byCount = new TextCache<number>({ max: 3 })
    for (let i = 0; i < 5; i++) byCount.set(`text number ${i}`, i)
    assert.equal(byCount.size, 3)
    assert.equal(byCount.get('text number 0'), undefined)
    assert.equal(byCount.get('text number 4'), 4)
    const bySize = new TextCache<number>({ max: 100, maxBytes: 10_000 })
    for (let i = 0; i < 10; i++) bySize.set(`${i}${'q'.repeat(1999)}`, i)
    assert.ok(bySize.size <= 2, `held ${bySize.size}`)
    assert.equal(bySize.get(`9${'q'.repeat(1999)}`), 9)
  })
})
