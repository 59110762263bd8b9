/**
 * The pipeline service's cache on the hot path (`findNow`): answered without
 * a promise while fresh; an invalidation (an update or deletion here or on
 * another replica) or a reset takes effect on the next lookup; an expired
 * entry is read again; misses are not cached.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setImmediate, setTimeout as sleep } from 'node:timers/promises'
import { Invalidator } from '../../src/agents/invalidator.js'
import type { PluginRegistry } from '../../src/chain/plugin-registry.js'
import { MemoryEventBus } from '../../src/kv/event-bus.js'
import { PipelineService } from '../../src/pipelines/pipeline-service.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { PipelineRecord } from '../../src/storage/store.js'

class CountingStore extends MemoryStore {
  reads = 0
  override async getPipeline(id: string): Promise<PipelineRecord | undefined> {
    this.reads++
    return super.getPipeline(id)
  }
}

async function setup(ttlMs?: number) {
  const store = new CountingStore()
  const bus = new MemoryEventBus()
  const invalidator = new Invalidator(bus)
  await invalidator.start()
  // findNow never consults the registry (only create/update validate against it).
  const pipelines = new PipelineService(store, {} as PluginRegistry, invalidator, () => {}, ttlMs)
  await store.createPipeline({ pipeline_id: 'p', preset: 'standard', overrides: {}, allow_flags: [] })
  return { store, bus, invalidator, pipelines }
}

const input = (flags: string[]) => ({
  pipeline_id: 'p',
  preset: 'standard',
  overrides: {},
  allow_flags: flags,
})

describe('pipeline cache', () => {
  it('answers a cached pipeline at once, and reads it again after an invalidation', async () => {
    const { store, invalidator, pipelines } = await setup()
    assert.equal((await pipelines.findNow('p'))?.version, 1)
    const cached = pipelines.findNow('p')
    assert.ok(!(cached instanceof Promise))
    assert.equal(store.reads, 1)
    await store.updatePipeline(input(['mode']))
    assert.equal(
      (pipelines.findNow('p') as PipelineRecord).version,
      1,
      'not told yet: the cached record stands',
    )
    await invalidator.publish('pipeline', 'p')
    const next = pipelines.findNow('p')
    assert.ok(next instanceof Promise, 'read again on the next call')
    assert.equal((await next)?.version, 2)
    assert.deepEqual((pipelines.findNow('p') as PipelineRecord).allow_flags, ['mode'])
  })

  it('forgets a deleted pipeline on the next call, and does not cache misses', async () => {
    const { store, invalidator, pipelines } = await setup()
    await pipelines.findNow('p')
    await store.deletePipeline('p')
    await invalidator.publish('pipeline', 'p')
    assert.equal(await pipelines.findNow('p'), undefined)
    const reads = store.reads
    assert.equal(await pipelines.findNow('p'), undefined)
    assert.equal(store.reads, reads + 1)
  })

  it('drops everything on a reset', async () => {
    const { store, bus, pipelines } = await setup()
    await pipelines.findNow('p')
    await bus.publish('gov:invalidate', JSON.stringify({ kind: 'all' }))
    await setImmediate()
    assert.ok(pipelines.findNow('p') instanceof Promise)
    assert.equal(store.reads, 2)
  })

  it('reads an expired entry again', async () => {
    const { store, pipelines } = await setup(40)
    await pipelines.findNow('p')
    assert.ok(!(pipelines.findNow('p') instanceof Promise))
    await store.updatePipeline(input(['pii']))
    await sleep(60)
    const again = pipelines.findNow('p')
    assert.ok(again instanceof Promise)
    assert.equal((await again)?.version, 2)
  })
})
