/**
 * One behaviour suite for every KeyValueStore kind (memory, Redis), so steps
 * behave the same embedded and scaled out. TTLs use real time, in tens of
 * milliseconds, because Redis expires keys on its own clock.
 */

import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { KeyValueStore } from '@gov/core'
import { GovError } from '@gov/core'
import { KvErrorCodes } from '../../src/kv/kv-errors.js'

/** Register the conformance tests in the current `describe`. */
export function describeKvConformance(getKv: () => KeyValueStore): void {
  const tag = randomBytes(4).toString('hex')
  let serial = 0
  const key = (what: string) => `${what}:${tag}:${++serial}`

  it('gets what was set, undefined for a missing key, and nothing after del', async () => {
    const kv = getKv()
    const k = key('plain')
    assert.equal(await kv.get(k), undefined)
    await kv.set(k, 'one')
    assert.equal(await kv.get(k), 'one')
    await kv.set(k, 'two ✓ ünïcode')
    assert.equal(await kv.get(k), 'two ✓ ünïcode')
    await kv.del(k)
    assert.equal(await kv.get(k), undefined)
    await kv.del(k)
  })

  it('expires a value after its TTL; a later set without TTL keeps it forever', async () => {
    const kv = getKv()
    const k = key('ttl')
    const started = performance.now()
    await kv.set(k, 'short', 300)
    const setDone = performance.now()
    const read = await kv.get(k)
    // Read within the TTL (a loaded machine may take longer: then only expiry is checked).
    if (performance.now() - started < 300) assert.equal(read, 'short')
    await sleep(Math.max(0, setDone + 350 - performance.now()))
    assert.equal(await kv.get(k), undefined)
    await kv.set(k, 'again', 300)
    await kv.set(k, 'forever')
    await sleep(350)
    assert.equal(await kv.get(k), 'forever')
  })

  it('setIfAbsent sets once, refuses while present, and sets again after expiry', async () => {
    const kv = getKv()
    const k = key('nx')
    const started = performance.now()
    assert.equal(await kv.setIfAbsent(k, 'first', 300), true)
    const firstDone = performance.now()
    const second = await kv.setIfAbsent(k, 'second', 300)
    const read = await kv.get(k)
    // Within the TTL the first value holds (a loaded machine may take longer: then only expiry is checked).
    if (performance.now() - started < 300) {
      assert.equal(second, false)
      assert.equal(read, 'first')
    }
    await sleep(Math.max(0, firstDone + 350 - performance.now()))
    if (second) await kv.del(k)
    assert.equal(await kv.setIfAbsent(k, 'third'), true)
    assert.equal(await kv.get(k), 'third')
  })

  it('setIfAbsent lets exactly one of many concurrent callers win', async () => {
    const kv = getKv()
    const k = key('nx-race')
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => kv.setIfAbsent(k, `v${i}`)))
    assert.equal(results.filter(Boolean).length, 1)
    assert.equal(await kv.get(k), `v${results.indexOf(true)}`)
  })

  it('incr starts from 0, adds 1 by default or the given amount, negative and fractional too', async () => {
    const kv = getKv()
    const k = key('incr')
    assert.equal(await kv.incr(k), 1)
    assert.equal(await kv.incr(k), 2)
    assert.equal(await kv.incr(k, 40), 42)
    assert.equal(await kv.incr(k, -50), -8)
    assert.equal(await kv.get(k), '-8')
    const f = key('float')
    assert.equal(await kv.incr(f, 0.1), 0.1)
    assert.equal(await kv.incr(f, 0.2), 0.1 + 0.2)
    assert.equal(await kv.incr(f, 1e-9), 0.1 + 0.2 + 1e-9)
    assert.equal(Number(await kv.get(f)), 0.1 + 0.2 + 1e-9)
  })

  it('incr adds to a value written by set', async () => {
    const kv = getKv()
    const k = key('incr-set')
    await kv.set(k, '10')
    assert.equal(await kv.incr(k, 5), 15)
  })

  it('incr applies its TTL when it creates the key, and never extends it', async () => {
    const kv = getKv()
    const k = key('incr-ttl')
    const created = performance.now()
    assert.equal(await kv.incr(k, 1, 400), 1)
    const firstDone = performance.now()
    const second = await kv.incr(k, 1, 60_000)
    // Within the 400 ms the counter counts on. A machine too slow to make the
    // second call in time may have started it over (then with 60 s to live).
    if (performance.now() - created < 400) assert.equal(second, 2)
    if (second === 2) {
      // Not extended to 60 s: gone once the first TTL has run out.
      await sleep(Math.max(0, firstDone + 450 - performance.now()))
      assert.equal(await kv.get(k), undefined)
    } else {
      assert.equal(second, 1)
      await kv.del(k)
    }
    // After expiry the counter starts again, with the new TTL.
    assert.equal(await kv.incr(k, 1, 100), 1)
    // A key created without TTL keeps none.
    const forever = key('incr-forever')
    await kv.incr(forever)
    await kv.incr(forever, 1, 50)
    await sleep(120)
    assert.equal(await kv.get(forever), '2')
  })

  it('incr on a value that is not a number throws GOV_ERR_KV_NOT_A_NUMBER and leaves it alone', async () => {
    const kv = getKv()
    for (const text of ['abc', '', '0x10', 'inf', 'nan', '1e']) {
      const k = key('nan')
      await kv.set(k, text)
      const error = await kv.incr(k).then(
        () => assert.fail(`incr on ${JSON.stringify(text)} succeeded`),
        (e: unknown) => e,
      )
      assert.ok(error instanceof GovError)
      assert.equal(error.code, KvErrorCodes.NOT_A_NUMBER)
      assert.equal(await kv.get(k), text)
    }
  })

  it('incr loses no update under concurrent calls', async () => {
    const kv = getKv()
    const k = key('incr-race')
    const n = 200
    const results = await Promise.all(Array.from({ length: n }, () => kv.incr(k, 1, 60_000)))
    assert.deepEqual(
      [...results].sort((a, b) => a - b),
      Array.from({ length: n }, (_, i) => i + 1),
    )
    assert.equal(await kv.get(k), String(n))
  })
}
