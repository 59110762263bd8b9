import { GovError } from '@gov/core'
import { LRUCache } from 'lru-cache'
import type { AdminAudit, AdminChange } from '../audit/admin-entry.js'
import { generateAgentKey, hashKey, keyPrefix } from '../auth/credentials.js'
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

/**
 * Agents and their keys. The key is shown once, at creation or rotation; only
 * its SHA-256 is stored. Lookups by key are cached so the hot path rarely waits
 * on the database (one read per key per 5 s); changes invalidate the cache on every replica.
 */
export class AgentService {
  readonly #byHash: LRUCache<string, AgentRecord>

  /** @param options.cacheTtlMs how long a key lookup is trusted; default {@link CREDENTIAL_CACHE_TTL_MS} */
  constructor(
    private readonly store: Store,
    private readonly invalidator: Invalidator,
    private readonly seats: number | undefined,
    options: { cacheTtlMs?: number } = {},
  ) {
    this.#byHash = new LRUCache({ max: 10_000, ttl: options.cacheTtlMs ?? CREDENTIAL_CACHE_TTL_MS })
    invalidator.on('agent', (keyHash) => this.#byHash.delete(keyHash))
    invalidator.onReset(() => this.#byHash.clear())
  }

  async byKey(key: string): Promise<AgentRecord | undefined> {
    const hash = hashKey(key)
    const cached = this.#byHash.get(hash)
    if (cached) return cached
    return this.#load(hash)
  }

  /**
   * The agent of a key, without a promise when the lookup is cached (the hot
   * path); else the same database read as {@link byKey}. The key is hashed once.
   */
  byKeyNow(key: string): AgentRecord | Promise<AgentRecord | undefined> {
    const hash = hashKey(key)
    return this.#byHash.get(hash) ?? this.#load(hash)
  }

  async #load(hash: string): Promise<AgentRecord | undefined> {
    const agent = await this.store.getAgentByKeyHash(hash)
    if (agent) this.#byHash.set(hash, agent)
    return agent
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
