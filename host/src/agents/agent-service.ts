import { GovError } from '@gov/core'
import type { AdminAudit, AdminChange } from '../audit/admin-entry.js'
import { generateAgentKey, hashKey, keyPrefix } from '../auth/credentials.js'
import { DeadlineEntry, DeadlineMap } from '../kv/deadline-map.js'
import type { AgentRecord, Store } from '../storage/store.js'
import type { Invalidator } from './invalidator.js'

/** An agent as the API shows it (never the key hash). */
export interface AgentView {
  agent_id: string
  pipeline_id: string | null
  key_prefix: string
  created_at: string
  updated_at: string
}

export function agentView(agent: AgentRecord): AgentView {
  return {
    agent_id: agent.agent_id,
    pipeline_id: agent.pipeline_id,
    key_prefix: agent.key_prefix,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  }
}

/**
 * How long a replica trusts a cached key lookup. Changes are invalidated on
 * every replica through the bus; when the bus (Redis) is down, this is the
 * bound after which a deleted or rotated key stops working everywhere.
 */
export const CREDENTIAL_CACHE_TTL_MS = 5_000

/** How often expired key lookups are swept out (on the next lookup after this many ms). */
const SWEEP_INTERVAL_MS = 1_000

/** Most keys whose lookup is kept (the oldest kept goes first past it). */
const MAX_CACHED_KEYS = 10_000

/** A cached key lookup: the agent of the key whose SHA-256 is the entry's key. */
interface CachedAgent {
  readonly agent: AgentRecord
  /** The raw key it was found by, so an invalidation by hash also drops the entry by key. */
  key: string | undefined
}

type AgentEntry = DeadlineEntry<string, CachedAgent>

/**
 * Agents and their keys. The key is shown once, at creation or rotation; only
 * its SHA-256 is stored. Lookups by key are cached so the hot path rarely waits
 * on the database (one read per key per 5 s); changes invalidate the cache on every replica.
 *
 * The cache is found by the raw key (a `Map` lookup, no SHA-256 per call) and
 * by its hash (what invalidations name); both lead to one entry, and an
 * invalidation drops it under both at once, so a deleted or rotated key is
 * refused from the very next call. The raw-key map compares keys only where
 * V8's seeded string hashes collide: no timing that tells a caller anything
 * about another key (the store is still queried by the hash).
 */
export class AgentService {
  /** Lookups by key hash, in the order they were loaded; whatever drops one also unlinks its raw key. */
  readonly #byHash: DeadlineMap<string, CachedAgent>
  /** The same entries by the raw key they were found by. */
  readonly #byKey = new Map<string, AgentEntry>()

  /**
   * @param options.cacheTtlMs how long a key lookup is trusted; default {@link CREDENTIAL_CACHE_TTL_MS}
   * @param options.maxKeys most key lookups kept; default {@link MAX_CACHED_KEYS}
   * @param options.sweepIntervalMs how often expired lookups (and the raw keys they hold) are swept out;
   *   default {@link SWEEP_INTERVAL_MS}
   */
  constructor(
    private readonly store: Store,
    private readonly invalidator: Invalidator,
    private readonly seats: number | undefined,
    options: { cacheTtlMs?: number; maxKeys?: number; sweepIntervalMs?: number } = {},
  ) {
    this.#byHash = new DeadlineMap({
      // 0 keeps its lru-cache meaning: no expiry.
      ttlMs: options.cacheTtlMs || Number.POSITIVE_INFINITY,
      max: options.maxKeys ?? MAX_CACHED_KEYS,
      sweepIntervalMs: options.sweepIntervalMs ?? SWEEP_INTERVAL_MS,
      onDrop: (entry) => this.#unlink(entry),
    })
    invalidator.on('agent', (keyHash) => this.#byHash.delete(keyHash))
    invalidator.onReset(() => this.#byHash.clear())
  }

  async byKey(key: string): Promise<AgentRecord | undefined> {
    return this.byKeyNow(key)
  }

  /**
   * The agent of a key, without a promise when the lookup is cached (the hot
   * path); else the same database read as {@link byKey}. A key seen before is
   * not hashed again.
   */
  byKeyNow(key: string): AgentRecord | Promise<AgentRecord | undefined> {
    const now = performance.now()
    this.#byHash.sweepDue(now)
    const known = this.#byKey.get(key)
    if (known !== undefined) {
      if (now < known.expires) return known.value.agent
      this.#byHash.drop(known)
    }
    const hash = hashKey(key)
    const cached = this.#byHash.entry(hash, now)
    if (cached !== undefined) {
      this.#link(key, cached)
      return cached.value.agent
    }
    return this.#load(key, hash)
  }

  async #load(key: string, hash: string): Promise<AgentRecord | undefined> {
    const agent = await this.store.getAgentByKeyHash(hash)
    if (agent) this.#link(key, this.#byHash.set(hash, { agent, key: undefined }))
    return agent
  }

  /** Find `entry` by `key` too (a hash has one key: SHA-256 has no known collisions). */
  #link(key: string, entry: AgentEntry): void {
    const cached = entry.value
    if (cached.key === key) return
    if (cached.key !== undefined) this.#byKey.delete(cached.key)
    cached.key = key
    this.#byKey.set(key, entry)
  }

  /** An entry left the hash map: it is no longer found by its raw key either. */
  #unlink(entry: AgentEntry): void {
    const key = entry.value.key
    if (key !== undefined && this.#byKey.get(key) === entry) this.#byKey.delete(key)
  }

  /** How many key lookups are kept (each holds its raw key). */
  get cachedKeys(): number {
    return this.#byHash.size
  }

  /**
   * Create an agent; `audit` commits it together with its record (see
   * {@link AdminAudit.commit}), `describe` builds that record. Every change
   * below works this way, and invalidates caches only once it is committed.
   */
  async create(
    agentId: string,
    pipelineId: string | null,
    audit: AdminAudit,
    describe: (agent: AgentRecord) => AdminChange,
  ): Promise<{ agent: AgentRecord; apiKey: string }> {
    const apiKey = generateAgentKey()
    const agent = await audit.commit(async (store) => {
      if (pipelineId !== null && !(await store.getPipeline(pipelineId))) {
        throw new GovError('not_found', `pipeline ${pipelineId} does not exist`, 404)
      }
      return store.createAgent(
        {
          agent_id: agentId,
          key_hash: hashKey(apiKey),
          key_prefix: keyPrefix(apiKey),
          pipeline_id: pipelineId,
        },
        this.seats,
      )
    }, describe)
    return { agent, apiKey }
  }

  list(): Promise<AgentRecord[]> {
    return this.store.listAgents()
  }

  async get(agentId: string): Promise<AgentRecord> {
    return found(this.store, agentId)
  }

  async delete(
    agentId: string,
    audit: AdminAudit,
    describe: (agent: AgentRecord) => AdminChange,
  ): Promise<void> {
    const agent = await audit.commit(async (store) => {
      const agent = await found(store, agentId)
      await store.deleteAgent(agentId)
      return agent
    }, describe)
    await this.invalidator.publish('agent', agent.key_hash)
  }

  async rotate(
    agentId: string,
    audit: AdminAudit,
    describe: (agent: AgentRecord) => AdminChange,
  ): Promise<{ agent: AgentRecord; apiKey: string }> {
    const apiKey = generateAgentKey()
    const { before, agent } = await audit.commit(
      async (store) => {
        const before = await found(store, agentId)
        return { before, agent: await store.rotateKey(agentId, hashKey(apiKey), keyPrefix(apiKey)) }
      },
      ({ agent }) => describe(agent),
    )
    await this.invalidator.publish('agent', before.key_hash)
    return { agent, apiKey }
  }

  async assign(
    agentId: string,
    pipelineId: string,
    audit: AdminAudit,
    describe: (agent: AgentRecord) => AdminChange,
  ): Promise<AgentRecord> {
    const agent = await audit.commit(async (store) => {
      if (!(await store.getPipeline(pipelineId)))
        throw new GovError('not_found', `pipeline ${pipelineId} does not exist`, 404)
      return store.assignPipeline(agentId, pipelineId)
    }, describe)
    await this.invalidator.publish('agent', agent.key_hash)
    return agent
  }
}

async function found(store: Store, agentId: string): Promise<AgentRecord> {
  const agent = await store.getAgent(agentId)
  if (!agent) throw new GovError('not_found', `agent ${agentId} does not exist`, 404)
  return agent
}
