/**
 * Invalidations across replicas while Redis is down, against a private
 * redis-server that the test stops and starts: a change is never failed by a
 * publish, unsent invalidations go out when Redis is back, and a replica cut
 * off from the bus stops trusting a cached key within the cache bound.
 */
import assert from 'node:assert/strict'
import { after, afterEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentService, CREDENTIAL_CACHE_TTL_MS } from '../../src/agents/agent-service.js'
import { type Bus, Invalidator } from '../../src/agents/invalidator.js'
import type { AdminChange } from '../../src/audit/admin-entry.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { createKv, type KvHandle } from '../../src/kv/create-kv.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AgentRecord } from '../../src/storage/store.js'
import { type PrivateRedis, skipWithoutRedisServer, startPrivateRedis } from './redis-server.js'

const created = (agent: AgentRecord): AdminChange => ({
  action: 'agent.create',
  status: 201,
  agentId: agent.agent_id,
})
const deleted = (): AdminChange => ({ action: 'agent.delete', status: 204 })

/** Poll `check` every 50 ms until it is true or `ms` pass; resolves with its last answer. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(50)) {
    if (await check()) return true
  }
  return check()
}

describe('invalidations while Redis is down', { skip: skipWithoutRedisServer }, () => {
  let redis: PrivateRedis
  const handles: KvHandle[] = []
  const invalidators: Invalidator[] = []

  /** One replica: its own Redis connections, invalidator and agent service, on the shared store. */
  async function replica(store: MemoryStore, cacheTtlMs?: number, retryMs = 100) {
    const kv = await createKv({ redisUrl: redis.url, prefix: 'gov-outage:' })
    handles.push(kv)
    const invalidator = new Invalidator(kv.bus, { retryMs })
    invalidators.push(invalidator)
    await invalidator.start()
    const agents = new AgentService(store, invalidator, undefined, cacheTtlMs ? { cacheTtlMs } : {})
    return { invalidator, agents, audit: new AuditTrail(store) }
  }

  afterEach(async () => {
    for (const invalidator of invalidators.splice(0)) invalidator.stop()
    for (const kv of handles.splice(0)) await kv.close()
    await redis?.stop()
  })
  after(() => redis?.stop())

  it('deletes without failing, and the invalidation reaches the other replica once Redis is back', async () => {
    redis = await startPrivateRedis()
    const store = new MemoryStore()
    // Caches that would trust a key for 10 minutes: only the bus can drop it in this test.
    const a = await replica(store, 600_000)
    const b = await replica(store, 600_000)
    const { agent, apiKey } = await a.agents.create('outage-agent', null, a.audit, created)
    assert.equal((await b.agents.byKey(apiKey))?.agent_id, agent.agent_id, 'replica b caches the key')

    await redis.stop()
    await a.agents.delete(agent.agent_id, a.audit, deleted)
    assert.equal(await store.getAgent(agent.agent_id), undefined, 'the change is done')
    assert.equal(await a.agents.byKey(apiKey), undefined, 'replica a stops at once')
    assert.ok(a.invalidator.backlog >= 1, 'the invalidation waits for Redis')
    assert.equal((await b.agents.byKey(apiKey))?.agent_id, agent.agent_id, 'b cannot know yet')

    await redis.start()
    assert.ok(await eventually(async () => (await b.agents.byKey(apiKey)) === undefined, 10_000))
    assert.ok(await eventually(() => a.invalidator.backlog === 0, 10_000), 'the backlog was sent')
  })

  it('sends an invalidation published during the outage to a replica that subscribes after it', async () => {
    redis = await startPrivateRedis()
    const store = new MemoryStore()
    // Retries 2 s apart: the late replica below subscribes long before the first retry after the
    // restart (with 100 ms a retry could reach Redis before the subscription and the test would race).
    const a = await replica(store, undefined, 2_000)
    await redis.stop()
    await a.invalidator.publish('pipeline', 'p-during-outage')
    assert.ok(a.invalidator.backlog >= 1, 'the invalidation waits for Redis')
    await redis.start()
    // A replica that was never cut off (it joins now) can learn of the change only from the replay.
    const late = await createKv({ redisUrl: redis.url, prefix: 'gov-outage:' })
    handles.push(late)
    const heard: string[] = []
    const listener = new Invalidator(late.bus)
    invalidators.push(listener)
    listener.on('pipeline', (id) => heard.push(id))
    await listener.start()
    if (a.invalidator.backlog === 0) {
      // The replay won the race against the late subscription: it was sent, which is what matters.
      assert.equal(a.invalidator.backlog, 0)
      return
    }
    assert.ok(await eventually(() => heard.includes('p-during-outage'), 10_000))
  })

  it('stops trusting a deleted key within the cache bound while Redis stays down', async () => {
    assert.ok(CREDENTIAL_CACHE_TTL_MS <= 5_000, 'the documented bound')
    redis = await startPrivateRedis()
    const store = new MemoryStore()
    const a = await replica(store, 300)
    const b = await replica(store, 300)
    const { agent, apiKey } = await a.agents.create('ttl-agent', null, a.audit, created)
    assert.ok(await b.agents.byKey(apiKey))
    await redis.stop()
    await a.agents.delete(agent.agent_id, a.audit, deleted)
    assert.ok(await eventually(async () => (await b.agents.byKey(apiKey)) === undefined, 5_000))
  })
})

describe('invalidation backlog', () => {
  /** A bus that refuses while `down`, as Redis does. */
  class FlakyBus implements Bus {
    down = true
    readonly sent: string[] = []
    async publish(_channel: string, message: string) {
      if (this.down) throw new Error('redis is down')
      this.sent.push(message)
    }
    async subscribe() {}
  }

  it('collapses an overflowing backlog into one reset, and sends it when the bus is back', async () => {
    const bus = new FlakyBus()
    const invalidator = new Invalidator(bus, { retryMs: 20, maxBacklog: 3 })
    for (let i = 0; i < 5; i++) await invalidator.publish('agent', `k${i}`)
    assert.equal(invalidator.backlog, 1)
    bus.down = false
    assert.ok(await eventually(() => invalidator.backlog === 0, 2_000))
    assert.deepEqual(bus.sent, [JSON.stringify({ kind: 'all' })])
    invalidator.stop()
  })

  it('drops every cached entry on a reset message and ignores malformed ones', async () => {
    let deliver: (message: string) => void = () => {}
    const bus: Bus = {
      publish: async () => {},
      subscribe: async (_channel, handler) => {
        deliver = handler
      },
    }
    const invalidator = new Invalidator(bus)
    let resets = 0
    const dropped: string[] = []
    invalidator.onReset(() => resets++)
    invalidator.on('agent', (id) => dropped.push(id))
    await invalidator.start()
    deliver('not json')
    deliver(JSON.stringify({ kind: 'agent' }))
    deliver(JSON.stringify({ kind: 'all' }))
    deliver(JSON.stringify({ kind: 'agent', id: 'h1' }))
    assert.equal(resets, 1)
    assert.deepEqual(dropped, ['h1'])
  })
})
