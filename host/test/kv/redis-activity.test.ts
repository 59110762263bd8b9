/**
 * Call activity in Redis: calls are counted in process and written in one
 * pipeline per flush (never one command per call), two replicas' counts add up,
 * the window keeps the last 100 calls, and the in-process store scores the same.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { AgentActivity, MemoryActivityStore } from '../../src/agents/activity.js'
import { RedisActivityStore } from '../../src/kv/redis-activity.js'
import { deleteKeys, skipWithoutRedis, TEST_REDIS_URL, uniquePrefix } from './redis-test-env.js'

/** A real client whose `pipeline()` and single commands are counted. */
function countedClient() {
  const redis = new Redis(TEST_REDIS_URL as string)
  const counts = { pipelines: 0, commands: 0 }
  const pipeline = redis.pipeline.bind(redis)
  redis.pipeline = ((...args: Parameters<typeof pipeline>) => {
    counts.pipelines += 1
    return pipeline(...args)
  }) as typeof redis.pipeline
  const sendCommand = redis.sendCommand.bind(redis)
  redis.sendCommand = ((...args: Parameters<typeof sendCommand>) => {
    counts.commands += 1
    return sendCommand(...args)
  }) as typeof redis.sendCommand
  return { redis, counts }
}

describe('shared call activity in Redis', { skip: skipWithoutRedis }, () => {
  const prefix = uniquePrefix('activity')
  const clients: Redis[] = []
  after(async () => {
    for (const c of clients) c.disconnect()
    if (TEST_REDIS_URL) await deleteKeys(TEST_REDIS_URL, prefix)
  })

  it('writes in one pipeline per flush and answers the same on two replicas', async () => {
    const a = countedClient()
    const b = countedClient()
    clients.push(a.redis, b.redis)
    await a.redis.ping()
    await b.redis.ping()
    const storeA = new RedisActivityStore(a.redis, { prefix, flushMs: 60_000 })
    const storeB = new RedisActivityStore(b.redis, { prefix, flushMs: 60_000 })
    let clock = 1_000_000
    const replicaA = new AgentActivity({ store: storeA, now: () => clock })
    const replicaB = new AgentActivity({ store: storeB, now: () => clock })
    const before = { ...a.counts }
    for (let i = 0; i < 150; i++) {
      clock += 1
      replicaA.record('agent-1', i % 3 === 0 ? 'blocked' : 'allowed', false)
    }
    assert.deepEqual(a.counts, before, 'recording calls sends nothing to Redis')
    await storeA.flush()
    assert.equal(a.counts.pipelines - before.pipelines, 1, 'one pipeline for the 150 calls')
    // Replica B's calls are older than A's last one: the last call time must not move back.
    const newest = clock
    clock -= 100
    replicaB.record('agent-1', 'error', false)
    replicaB.record('agent-2', 'allowed', true)
    const [one, two] = await replicaA.summaries(['agent-1', 'agent-2'])
    const fromB = await replicaB.summaries(['agent-1', 'agent-2'])
    // A's read flushed nothing of B's yet; B's read flushed its own first.
    assert.equal(one?.calls, 150)
    assert.equal(two?.calls, 0)
    assert.equal(fromB[0]?.calls, 151)
    assert.deepEqual(await replicaA.summaries(['agent-1', 'agent-2']), fromB, 'both replicas answer the same')
    // The window is the last 100 calls: 33 blocked of A's last 99 (i = 51…149), then B's error.
    assert.deepEqual(fromB[0], {
      score: Math.round(100 - (60 * 33 + 25 * 1) / 100),
      calls: 151,
      blocked: 33,
      errors: 1,
      flagged: 0,
      last_seen: new Date(newest).toISOString(),
    })
    assert.equal(fromB[1]?.flagged, 1)
    assert.equal(fromB[1]?.score, 85)
    clock = newest
    assert.equal(await replicaA.activeCount(), 2)
    assert.equal(await replicaB.activeCount(60_000), 2)
    clock = newest + 5 * 60_000 + 1
    assert.equal(await replicaA.activeCount(), 0, 'no call in the last 5 minutes')

    await replicaB.forget('agent-1')
    const [gone] = await replicaA.summaries(['agent-1'])
    assert.deepEqual(gone, { score: 100, calls: 0, blocked: 0, errors: 0, flagged: 0, last_seen: null })
    await storeA.close()
    await storeB.close()
  })

  it('scores the same in process', async () => {
    let clock = 5_000
    const local = new AgentActivity({ store: new MemoryActivityStore(), now: () => clock })
    for (let i = 0; i < 150; i++) {
      clock += 1
      local.record('agent-1', i % 3 === 0 ? 'blocked' : 'allowed', false)
    }
    local.record('agent-1', 'error', false)
    const summary = await local.summary('agent-1')
    assert.deepEqual(
      { blocked: summary.blocked, errors: summary.errors, calls: summary.calls },
      { blocked: 33, errors: 1, calls: 151 },
    )
    assert.equal(await local.activeCount(), 1)
  })
})
