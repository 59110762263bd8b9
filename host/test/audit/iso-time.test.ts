import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { isoTime } from '../../src/audit/iso-time.js'

describe('isoTime', () => {
  it('writes what toISOString writes, over years 1000–9999 and at their edges', () => {
    const random = seededRandom(20_261_125)
    const first = Date.UTC(1000, 0, 1)
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
    const times = [
      first,
      last,
      first - 1,
      last + 1,
      0,
      -1,
      1,
      Date.UTC(2000, 1, 29, 12),
      Date.UTC(1900, 2, 1) - 1,
    ]
    for (let i = 0; i < 20_000; i++) times.push(Math.floor(first + random() * (last - first)))
    // Around now, millisecond by millisecond across day and year ends.
    for (let i = 0; i < 2000; i++) times.push(Date.UTC(2026, 11, 31, 23, 59, 59) + i)
    for (const t of times) assert.equal(isoTime(new Date(t)), new Date(t).toISOString(), String(t))
  })

  it('gives toISOString its own answer outside those years, and its RangeError for an invalid date', () => {
    for (const t of [Date.UTC(999, 11, 31), Date.UTC(10_000, 0, 1), -8.64e15, 8.64e15])
      assert.equal(isoTime(new Date(t)), new Date(t).toISOString())
    assert.throws(() => isoTime(new Date(Number.NaN)), RangeError)
  })
})
