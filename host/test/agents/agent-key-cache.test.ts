/**
 * The agent service's key cache, found by the raw key: a rotation, a deletion,
 * a pipeline change or a reset takes effect on the very next lookup; an
 * expired lookup is read again; the store is queried once per key while the
 * lookup stands; the cache stays bounded.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setImmediate, setTimeout as sleep } from 'node:timers/promises'
import { AgentService } from '../../src/agents/agent-service.js'
import { Invalidator } from '../../src/agents/invalidator.js'
import type { AdminChange } from '../../src/audit/admin-entry.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { hashKey } from '../../src/auth/credentials.js'
import { MemoryEventBus } from '../../src/kv/event-bus.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AgentRecord } from '../../src/storage/store.js'

const change = (): AdminChange => ({ action: 'agent.create', status: 201 })

/** A store that counts its key lookups. */
class CountingStore extends MemoryStore {
  lookups = 0
  override async getAgentByKeyHash(keyHash: string): Promise<AgentRecord | undefined> {
    this.lookups++
    return super.getAgentByKeyHash(keyHash)
  }
}

async function setup(options: ConstructorParameters<typeof AgentService>[3] = {}) {
  const store = new CountingStore()
  const bus = new MemoryEventBus()
  const invalidator = new Invalidator(bus)
  await invalidator.start()
  const agents = new AgentService(store, invalidator, undefined, options)
  return { store, bus, invalidator, agents, audit: new AuditTrail(store) }
}

/** Create `count` agents named `prefix0`… and look each key up once (so each is cached); their keys. */
async function createAndLookUp(
  { agents, audit }: Awaited<ReturnType<typeof setup>>,
  prefix: string,
  count: number,
): Promise<string[]> {
  const keys: string[] = []
  for (let i = 0; i < count; i++)
    keys.push((await agents.create(`${prefix}${i}`, null, audit, change)).apiKey)
  for (const key of keys) await lookup(agents, key)
  return keys
}

/** `byKeyNow`, awaited when it answers with a promise. */
async function lookup(agents: AgentService, key: string): Promise<AgentRecord | undefined> {
  return agents.byKeyNow(key)
}

describe('agent key cache', () => {
  it('answers a cached key without a promise and without asking the store again', async () => {
    const { store, agents, audit } = await setup()
    const { agent, apiKey } = await agents.create('a1', null, audit, change)
    assert.equal((await lookup(agents, apiKey))?.agent_id, agent.agent_id)
    const before = store.lookups
    const now = agents.byKeyNow(apiKey)
    assert.ok(!(now instanceof Promise), 'a cached key is answered at once')
    assert.equal((now as AgentRecord).agent_id, agent.agent_id)
    assert.equal(store.lookups, before)
  })

  it('refuses a rotated key on the very next call and accepts the new one', async () => {
    const { agents, audit } = await setup({ cacheTtlMs: 600_000 })
    const { apiKey: oldKey } = await agents.create('a2', null, audit, change)
    assert.equal((await lookup(agents, oldKey))?.agent_id, 'a2')
    assert.equal((agents.byKeyNow(oldKey) as AgentRecord).agent_id, 'a2', 'cached by the raw key')
    const { apiKey: newKey } = await agents.rotate('a2', audit, change)
    assert.equal(await lookup(agents, oldKey), undefined)
    assert.equal((await lookup(agents, newKey))?.agent_id, 'a2')
    assert.equal(await lookup(agents, oldKey), undefined, 'still refused once the new key is cached')
  })

  it('refuses a deleted key on the very next call', async () => {
    const { agents, audit } = await setup({ cacheTtlMs: 600_000 })
    const { apiKey } = await agents.create('a3', null, audit, change)
    await lookup(agents, apiKey)
    await lookup(agents, apiKey)
    await agents.delete('a3', audit, change)
    assert.equal(await lookup(agents, apiKey), undefined)
    assert.equal(await agents.byKey(apiKey), undefined)
  })

  it('sees a pipeline assignment on the next call', async () => {
    const { store, agents, audit } = await setup({ cacheTtlMs: 600_000 })
    await store.createPipeline({ pipeline_id: 'p1', preset: 'standard', overrides: {}, allow_flags: [] })
    const { apiKey } = await agents.create('a4', null, audit, change)
    assert.equal((await lookup(agents, apiKey))?.pipeline_id, null)
    await agents.assign('a4', 'p1', audit, change)
    assert.equal((await lookup(agents, apiKey))?.pipeline_id, 'p1')
  })

  it('drops everything on a reset and on an invalidation by hash from another replica', async () => {
    const { store, bus, invalidator, agents, audit } = await setup({ cacheTtlMs: 600_000 })
    const { apiKey } = await agents.create('a5', null, audit, change)
    await lookup(agents, apiKey)
    const before = store.lookups
    await invalidator.publish('agent', hashKey(apiKey))
    await lookup(agents, apiKey)
    assert.equal(store.lookups, before + 1, 'read again after the invalidation')
    // Another replica deletes it: this one hears only the hash, and refuses the key from the next call on.
    await store.deleteAgent('a5')
    assert.equal((await lookup(agents, apiKey))?.agent_id, 'a5', 'not told yet: the cached lookup stands')
    await invalidator.publish('agent', hashKey(apiKey))
    assert.equal(await lookup(agents, apiKey), undefined)
    // A reset (a replica that may have missed messages) drops every entry.
    const { apiKey: other } = await agents.create('a5b', null, audit, change)
    await lookup(agents, other)
    const counted = store.lookups
    await lookup(agents, other)
    assert.equal(store.lookups, counted, 'cached')
    await bus.publish('gov:invalidate', JSON.stringify({ kind: 'all' }))
    await setImmediate() // the in-process bus delivers on the next turn, as Redis would
    assert.ok(agents.byKeyNow(other) instanceof Promise, 'read again after the reset')
    assert.equal(store.lookups, counted + 1)
  })

  it('reads an expired lookup again', async () => {
    const { store, agents, audit } = await setup({ cacheTtlMs: 40 })
    const { apiKey } = await agents.create('a6', null, audit, change)
    await lookup(agents, apiKey)
    const before = store.lookups
    await lookup(agents, apiKey)
    assert.equal(store.lookups, before, 'fresh: from the cache')
    await sleep(60)
    const again = agents.byKeyNow(apiKey)
    assert.ok(again instanceof Promise, 'expired: read from the store')
    assert.equal((await again)?.agent_id, 'a6')
    assert.equal(store.lookups, before + 1)
    // An agent deleted behind the cache's back is gone once its lookup expired.
    await store.deleteAgent('a6')
    await sleep(60)
    assert.equal(await lookup(agents, apiKey), undefined)
  })

  it('sweeps out expired lookups, raw keys included, without waiting for the same key again', async () => {
    const t = await setup({ cacheTtlMs: 40, sweepIntervalMs: 10 })
    const { agents, audit } = t
    await createAndLookUp(t, 's', 3)
    assert.equal(agents.cachedKeys, 3)
    await sleep(60)
    const { apiKey: fresh } = await agents.create('s3', null, audit, change)
    await lookup(agents, fresh)
    assert.equal(agents.cachedKeys, 1, 'the three expired lookups went at the next lookup of another key')
  })

  it('never answers an unknown key, and does not cache misses', async () => {
    const { store, agents } = await setup()
    assert.equal(await lookup(agents, 'gov_nope'), undefined)
    assert.equal(await lookup(agents, 'gov_nope'), undefined)
    assert.equal(store.lookups, 2)
  })

  it('stays bounded: past the bound the oldest lookup goes first', async () => {
    const t = await setup({ cacheTtlMs: 600_000, maxKeys: 2 })
    const { store, agents } = t
    const keys = await createAndLookUp(t, 'b', 3)
    const before = store.lookups
    assert.equal(((await lookup(agents, keys[2] as string)) as AgentRecord).agent_id, 'b2')
    assert.equal(((await lookup(agents, keys[1] as string)) as AgentRecord).agent_id, 'b1')
    assert.equal(store.lookups, before, 'the two newest are cached')
    assert.ok(agents.byKeyNow(keys[0] as string) instanceof Promise, 'the oldest was dropped')
    assert.equal(store.lookups, before + 1)
  })
})
