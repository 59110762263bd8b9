import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createKv, type KvHandle } from '../../src/kv/create-kv.js'
import { type EventBus, MemoryEventBus } from '../../src/kv/event-bus.js'
import { KvErrorCodes } from '../../src/kv/kv-errors.js'
import { deleteKeys, skipWithoutRedis, TEST_REDIS_URL, uniquePrefix } from './redis-test-env.js'

/** Resolve with the next `count` messages a handler receives, or reject after `ms`. */
function collect(bus: EventBus, channel: string, count: number, ms = 2000) {
  const received: string[] = []
  let done: (value: string[]) => void
  const all = new Promise<string[]>((resolve, reject) => {
    done = resolve
    setTimeout(() => reject(new Error(`got ${JSON.stringify(received)} of ${count} messages`)), ms).unref()
  })
  const subscribed = bus.subscribe(channel, (message) => {
    received.push(message)
    if (received.length === count) done(received)
  })
  return { subscribed, all, received }
}

describe('memory event bus', () => {
  it('delivers to every handler of the channel, in order, asynchronously, and not to other channels', async () => {
    const bus = new MemoryEventBus()
    const first = collect(bus, 'pipelines', 2)
    const second = collect(bus, 'pipelines', 2)
    const other = collect(bus, 'agents', 1)
    await Promise.all([first.subscribed, second.subscribed, other.subscribed])
    await bus.publish('pipelines', 'a')
    assert.deepEqual(first.received, [], 'delivered inside publish')
    await bus.publish('pipelines', 'b')
    assert.deepEqual(await first.all, ['a', 'b'])
    assert.deepEqual(await second.all, ['a', 'b'])
    assert.deepEqual(other.received, [])
    await bus.close()
  })

  it('keeps delivering when a handler throws, and reports the error', async () => {
    const errors: unknown[] = []
    const bus = new MemoryEventBus((error) => errors.push(error))
    await bus.subscribe('c', () => {
      throw new Error('handler broke')
    })
    const good = collect(bus, 'c', 1)
    await good.subscribed
    await bus.publish('c', 'x')
    assert.deepEqual(await good.all, ['x'])
    assert.equal(errors.length, 1)
    await bus.close()
  })

  it('refuses use after close with GOV_ERR_KV_BUS_CLOSED', async () => {
    const bus = new MemoryEventBus()
    await bus.close()
    await assert.rejects(bus.publish('c', 'x'), { code: KvErrorCodes.BUS_CLOSED })
    await assert.rejects(
      bus.subscribe('c', () => {}),
      { code: KvErrorCodes.BUS_CLOSED },
    )
  })
})

describe('redis event bus', { skip: skipWithoutRedis }, () => {
  const url = TEST_REDIS_URL!
  const prefix = uniquePrefix('bus')
  let replicaA: KvHandle
  let replicaB: KvHandle

  before(async () => {
    replicaA = await createKv({ redisUrl: url, prefix })
    replicaB = await createKv({ redisUrl: url, prefix })
  })

  after(async () => {
    await replicaA?.close()
    await replicaB?.close()
    await deleteKeys(url, prefix)
  })

  it('carries a message published on one replica to handlers on both', async () => {
    const onA = collect(replicaA.bus, 'invalidate', 2)
    const onB = collect(replicaB.bus, 'invalidate', 2)
    const onB2 = collect(replicaB.bus, 'invalidate', 2)
    await Promise.all([onA.subscribed, onB.subscribed, onB2.subscribed])
    await replicaA.bus.publish('invalidate', '{"kind":"pipeline","id":"p1"}')
    await replicaB.bus.publish('invalidate', 'second')
    const expected = ['{"kind":"pipeline","id":"p1"}', 'second']
    assert.deepEqual(await onA.all, expected)
    assert.deepEqual(await onB.all, expected)
    assert.deepEqual(await onB2.all, expected)
    assert.equal(await replicaB.healthy(), true)
  })

  it('does not cross channels or prefixes', async () => {
    const otherPrefix = uniquePrefix('bus-other')
    const stranger = await createKv({ redisUrl: url, prefix: otherPrefix })
    try {
      const strangerHears = collect(stranger.bus, 'quiet', 1)
      const otherChannel = collect(replicaB.bus, 'other', 1)
      const hears = collect(replicaB.bus, 'quiet', 1)
      await Promise.all([strangerHears.subscribed, otherChannel.subscribed, hears.subscribed])
      await replicaA.bus.publish('quiet', 'm')
      assert.deepEqual(await hears.all, ['m'])
      await sleep(100)
      assert.deepEqual(strangerHears.received, [])
      assert.deepEqual(otherChannel.received, [])
    } finally {
      await stranger.close()
    }
  })

  it('refuses use after close with GOV_ERR_KV_BUS_CLOSED', async () => {
    const handle = await createKv({ redisUrl: url, prefix })
    await handle.close()
    await assert.rejects(handle.bus.publish('c', 'x'), { code: KvErrorCodes.BUS_CLOSED })
  })
})
