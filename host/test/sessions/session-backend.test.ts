import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, describe, it } from 'node:test'
import type { Flights } from '@gov/core'
import { BusFlights } from '../../src/flights/bus-flights.js'
import { createKv, type KvHandle } from '../../src/kv/create-kv.js'
import { MemorySessionBackend } from '../../src/sessions/memory-session-backend.js'
import type { SessionBackend } from '../../src/sessions/session-backend.js'
import { openSession, sessionKey } from '../../src/sessions/session-store.js'
import { skipWithoutRedis, TEST_REDIS_URL } from '../kv/redis-test-env.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One suite for every session backend: two handles model two replicas on one store. */
function sessionConformance(name: string, open: () => Promise<{ a: SessionBackend; b: SessionBackend }>) {
  describe(`session backend: ${name}`, () => {
    it('scopes state by (agent, session): the same session id of another agent is another session', async () => {
      const { a } = await open()
      const s = `sess-${randomUUID()}`
      const mine = openSession(a, 'detect_pii', 'agent-a', s, 60_000)
      const theirs = openSession(a, 'detect_pii', 'agent-b', s, 60_000)
      await mine.set('p:<EMAIL_ADDRESS_1>', 'victim@example.org')
      assert.equal(await theirs.get('p:<EMAIL_ADDRESS_1>'), undefined)
      assert.deepEqual(await theirs.entries(), {})
      // Ids that try to forge a key collide with nothing.
      const forged = openSession(a, 'detect_pii', 'agent-a:sess', 'x', 60_000)
      assert.equal(await forged.get('p:<EMAIL_ADDRESS_1>'), undefined)
      assert.notEqual(sessionKey('a:b', 'c'), sessionKey('a', 'b:c'))
    })

    it('is shared by replicas and atomic under concurrent increments', async () => {
      const { a, b } = await open()
      const s = `sess-${randomUUID()}`
      const one = openSession(a, 'guard_loops', 'agent', s, 60_000)
      const two = openSession(b, 'guard_loops', 'agent', s, 60_000)
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).incr('turns')),
      )
      assert.deepEqual(
        [...results].sort((x, y) => x - y),
        Array.from({ length: 40 }, (_, i) => i + 1),
      )
      assert.equal(await two.get('turns'), '40')
      assert.equal(await one.setIfAbsent('first', 'x'), true)
      assert.equal(await two.setIfAbsent('first', 'y'), false)
      assert.deepEqual(await one.getMany(['first', 'none']), ['x', undefined])
    })

    it('expires a session as a whole after its TTL without use; use renews it; a peek does not', async () => {
      const { a, b } = await open()
      const s = `sess-${randomUUID()}`
      const live = openSession(a, 'detect_pii', 'agent', s, 1000)
      await live.incr('n:EMAIL_ADDRESS')
      await live.set('p:<EMAIL_ADDRESS_1>', 'ann@example.org')
      await sleep(600)
      await openSession(b, 'detect_pii', 'agent', s, 1000).get('p:<EMAIL_ADDRESS_1>')
      await sleep(600)
      // 1.2 s after the write, but renewed by the read at 0.6 s.
      assert.equal(await live.get('n:EMAIL_ADDRESS'), '1')
      await openSession(a, 'detect_pii', 'agent', s, undefined).entries()
      await sleep(1100)
      // Expired together: the counter cannot restart while a placeholder survives.
      assert.deepEqual(await openSession(b, 'detect_pii', 'agent', s, undefined).entries(), {})
    })

    it('clears one step’s namespace only', async () => {
      const { a } = await open()
      const s = `sess-${randomUUID()}`
      await openSession(a, 'track_taint', 'agent', s, 60_000).set('pii', '{}')
      await openSession(a, 'detect_pii', 'agent', s, 60_000).set('n:PERSON', '1')
      await openSession(a, 'track_taint', 'agent', s, 60_000).clear()
      assert.deepEqual(await openSession(a, 'track_taint', 'agent', s, 60_000).entries(), {})
      assert.equal(await openSession(a, 'detect_pii', 'agent', s, 60_000).get('n:PERSON'), '1')
    })
  })
}

const memory = new MemorySessionBackend()
sessionConformance('memory', async () => ({ a: memory, b: memory }))

describe('redis', { skip: skipWithoutRedis }, () => {
  const handles: KvHandle[] = []
  const prefix = `test-sessions-${randomUUID()}:`
  after(() => Promise.all(handles.map((h) => h.close())))
  sessionConformance('redis, two connections', async () => {
    while (handles.length < 2) handles.push(await createKv({ redisUrl: TEST_REDIS_URL, prefix }))
    return { a: handles[0].sessions, b: handles[1].sessions }
  })
})

/** Single flight: one leader, followers get its result; across replicas with Redis. */
function flightConformance(name: string, open: () => Promise<{ a: Flights; b: Flights }>) {
  describe(`single flight: ${name}`, () => {
    it('lets one call lead and gives the others its result', async () => {
      const { a, b } = await open()
      const key = `k-${randomUUID()}`
      const leader = await a.join(key, 5000)
      const follower = await b.join(key, 5000)
      assert.equal(leader.role, 'leader')
      assert.equal(follower.role, 'follower')
      if (leader.role !== 'leader' || follower.role !== 'follower') return
      const waited = follower.wait(5000)
      await sleep(30)
      await leader.complete('the answer', 1000)
      assert.equal(await waited, 'the answer')
      // A late joiner within the keep time gets the result without waiting.
      const late = await a.join(key, 5000)
      assert.equal(late.role, 'follower')
      if (late.role === 'follower') assert.equal(await late.wait(50), 'the answer')
    })

    it('tells followers when the leader abandons, and frees the key after the lease', async () => {
      const { a, b } = await open()
      const key = `k-${randomUUID()}`
      const leader = await a.join(key, 5000)
      const follower = await b.join(key, 5000)
      if (leader.role !== 'leader' || follower.role !== 'follower') return assert.fail('roles')
      const waited = follower.wait(5000)
      await leader.abandon()
      assert.equal(await waited, undefined)
      const key2 = `k-${randomUUID()}`
      assert.equal((await a.join(key2, 100)).role, 'leader')
      await sleep(200)
      assert.equal((await b.join(key2, 100)).role, 'leader', 'a crashed leader frees the key after its lease')
    })
  })
}

describe('flights', () => {
  const handles: KvHandle[] = []
  after(() => Promise.all(handles.map((h) => h.close())))
  flightConformance('memory', async () => {
    const h = await createKv()
    handles.push(h)
    const f = new BusFlights(h.kv, h.bus)
    return { a: f, b: f }
  })
  describe('redis', { skip: skipWithoutRedis }, () => {
    const prefix = `test-flights-${randomUUID()}:`
    flightConformance('redis, two replicas', async () => {
      const one = await createKv({ redisUrl: TEST_REDIS_URL, prefix })
      const two = await createKv({ redisUrl: TEST_REDIS_URL, prefix })
      handles.push(one, two)
      return { a: new BusFlights(one.kv, one.bus), b: new BusFlights(two.kv, two.bus) }
    })
  })
})
