import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Flight, KeyValueStore } from '@gov/core'
import { BusFlights } from '../../src/flights/bus-flights.js'
import { LocalFlights } from '../../src/flights/local-flights.js'
import { MemoryEventBus } from '../../src/kv/event-bus.js'
import { MemoryKv } from '../../src/kv/memory-kv.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function leader(flight: Flight) {
  if (flight.role !== 'leader') throw new Error(`expected a leader, got a ${flight.role}`)
  return flight
}
function follower(flight: Flight) {
  if (flight.role !== 'follower') throw new Error(`expected a follower, got a ${flight.role}`)
  return flight
}

/** A clock the test moves. */
function clock(start = 1_000) {
  let now = start
  return { now: () => now, move: (ms: number) => (now += ms) }
}

describe('LocalFlights', () => {
  it('is what BusFlights runs over the in-process store and bus: no lock, result or bus message per call', async () => {
    const kv = new MemoryKv()
    const bus = new MemoryEventBus()
    let published = 0
    await bus.subscribe('flights', () => published++)
    const flights = new BusFlights(kv, bus)
    const lead = leader(await flights.join('k', 5000))
    const waited = follower(await flights.join('k', 5000)).wait(5000)
    await lead.complete('the answer')
    assert.equal(await waited, 'the answer')
    await sleep(5)
    assert.equal(kv.size, 0, 'nothing written to the store')
    assert.equal(published, 0, 'nothing published')
  })

  it('uses the store and the bus when the store is not the in-process one', async () => {
    const memory = new MemoryKv()
    // Any other store (Redis, a wrapper): the flight goes through it.
    const kv: KeyValueStore = {
      get: (k) => memory.get(k),
      set: (k, v, t) => memory.set(k, v, t),
      setIfAbsent: (k, v, t) => memory.setIfAbsent(k, v, t),
      incr: (k, b, t) => memory.incr(k, b, t),
      del: (k) => memory.del(k),
    }
    const flights = new BusFlights(kv, new MemoryEventBus())
    const lead = leader(await flights.join('k', 5000))
    assert.equal(memory.size, 1, 'the lock key')
    const waited = follower(await flights.join('k', 5000)).wait(5000)
    await lead.complete('the answer')
    assert.equal(await waited, 'the answer')
  })

  it('gives a follower whose leader already ended nothing, at once: it goes upstream itself', async () => {
    const flights = new LocalFlights()
    const lead = leader(await flights.join('k', 5000))
    const late = follower(await flights.join('k', 5000))
    await lead.complete('the answer')
    const started = performance.now()
    assert.equal(await late.wait(5000), undefined)
    assert.ok(performance.now() - started < 1000)
    assert.equal((await flights.join('k', 5000)).role, 'leader', 'the key is free again')
  })

  it('tells followers when the leader abandons, and when they wait too long', async () => {
    const flights = new LocalFlights()
    const lead = leader(await flights.join('k', 5000))
    const waited = follower(await flights.join('k', 5000)).wait(5000)
    await lead.abandon()
    assert.equal(await waited, undefined)
    const lead2 = leader(await flights.join('k2', 5000))
    assert.equal(await follower(await flights.join('k2', 5000)).wait(20), undefined, 'timed out')
    await lead2.complete('late')
  })

  it('frees a key whose leader let its lease pass; that leader ending wakes the new flight`s followers empty-handed', async () => {
    const time = clock()
    const flights = new LocalFlights(time.now)
    const old = leader(await flights.join('k', 100))
    const oldFollower = follower(await flights.join('k', 100)).wait(5000)
    time.move(100)
    const next = leader(await flights.join('k', 100))
    const nextFollower = follower(await flights.join('k', 100)).wait(5000)
    // The old leader ends after its lease: its own follower gets its result; the new flight's
    // follower is woken with nothing (as BusFlights' lock delete and announcement do) and the key is free.
    await old.complete('old answer')
    assert.equal(await oldFollower, 'old answer')
    assert.equal(await nextFollower, undefined)
    assert.equal((await flights.join('k', 100)).role, 'leader')
    await next.complete('next answer')
  })

  it('tells a leader whether a follower waits for its flight (not one of an earlier flight of the key)', async () => {
    const time = clock()
    const flights = new LocalFlights(time.now)
    const first = leader(await flights.join('k', 100))
    assert.equal(first.hasFollowers?.(), false, 'nobody waits yet')
    const joined = follower(await flights.join('k', 100))
    assert.equal(first.hasFollowers?.(), false, 'joined, not waiting yet')
    const waited = joined.wait(5000)
    assert.equal(first.hasFollowers?.(), true)
    time.move(100)
    const second = leader(await flights.join('k', 100))
    assert.equal(second.hasFollowers?.(), false, 'the waiting follower is the first flight`s')
    const timedOut = follower(await flights.join('k', 100)).wait(1)
    assert.equal(second.hasFollowers?.(), true)
    assert.equal(await timedOut, undefined)
    assert.equal(second.hasFollowers?.(), false, 'a follower that gave up no longer waits')
    await first.complete('first')
    assert.equal(await waited, 'first')
    assert.equal(first.hasFollowers?.(), false)
  })

  it('keeps a completed result for late joiners for keepMs, then not', async () => {
    const time = clock()
    const flights = new LocalFlights(time.now)
    await leader(await flights.join('k', 5000)).complete('kept', 1000)
    time.move(999)
    assert.equal(await follower(await flights.join('k', 5000)).wait(10), 'kept')
    time.move(1)
    assert.equal((await flights.join('k', 5000)).role, 'leader')
  })

  it('does not hold flights whose leaders never ended, nor expired results, without bound', async () => {
    const time = clock()
    const flights = new LocalFlights(time.now)
    for (let i = 0; i < 10_000; i++) {
      // A leader that never ends (its caller left), and a result kept briefly.
      await flights.join(`lost-${i}`, 10)
      await leader(await flights.join(`done-${i}`, 10)).complete('x', 10)
      time.move(1)
    }
    assert.ok(flights.size < 2_100, `${flights.size} entries held`)
  })
})
