/**
 * The embedded default store: plain maps, nothing survives a restart. It mirrors
 * the SQL stores exactly — same ordering, same checks in the same order, same
 * coded errors — so the host and its tests cannot tell the kinds apart except by
 * durability. Records are copied in and out, as a database would; audit
 * records only on the way out (see `appendAudit`).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { compareIds } from './compare-ids.js'
import type {
  AgentRecord,
  AuditCheckpoint,
  AuditHead,
  AuditQuery,
  AuditRecord,
  CheckpointQuery,
  PipelineInput,
  PipelineRecord,
  Store,
} from './store.js'
import { DEFAULT_CONTENT_SETTINGS } from './store.js'
import {
  agentExistsError,
  keyInUseError,
  pipelineExistsError,
  pipelineInUseError,
  seatLimitError,
  unknownAgentError,
  unknownPipelineError,
} from './store-errors.js'

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Most audit records kept (`GOV_MEMORY_AUDIT_MAX`); default 20 000. Past it
   * the oldest tenth is dropped at once, so memory stays bounded and an append
   * stays cheap; `/health` then warns and verification starts at the oldest kept record.
   */
  auditMax?: number
}

/** A {@link Store} over in-process maps (`kind: 'memory'`). */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const
  readonly #auditMax: number
  /** The last dropped audit record, which the oldest kept one links to. */
  #anchor: AuditHead | undefined
  /** Set inside a transaction's async context: its own writes go ahead, others wait for it. */
  readonly #inTransaction = new AsyncLocalStorage<true>()
  /** Settles when the newest queued transaction ends. */
  #transactionEnd: Promise<void> = Promise.resolve()
  #transactionOpen = false
  readonly #pipelines = new Map<string, PipelineRecord>()
  readonly #agents = new Map<string, AgentRecord>()
  /** key_hash → agent_id, the unique index of the SQL schema. */
  readonly #agentIdByKeyHash = new Map<string, string>()
  /** Signed checkpoints of the audit chain by `seq`. */
  readonly #checkpoints = new Map<number, AuditCheckpoint>()
  /** The audit chain in `seq` order. */
  readonly #audit: AuditRecord[] = []

  constructor(options: MemoryStoreOptions = {}) {
    this.#auditMax = Math.max(1, options.auditMax ?? 20_000)
  }

  async init(): Promise<void> {}

  /**
   * One transaction at a time; writes from outside it wait until it ends, so
   * undoing it (restoring the maps as they were) cannot erase anyone else's
   * change. Audit appends are not undone: an append is the last step of a
   * transaction, and a failed one leaves nothing behind.
   */
  async transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    if (this.#inTransaction.getStore()) return work(this)
    const previous = this.#transactionEnd
    let end!: () => void
    this.#transactionEnd = new Promise((resolve) => {
      end = resolve
    })
    await previous
    this.#transactionOpen = true
    const pipelines = new Map(this.#pipelines)
    const agents = new Map(this.#agents)
    const keys = new Map(this.#agentIdByKeyHash)
    try {
      return await this.#inTransaction.run(true, () => work(this))
    } catch (error) {
      // Records are replaced on change, never edited in place: the shallow copies are the old state.
      restore(this.#pipelines, pipelines)
      restore(this.#agents, agents)
      restore(this.#agentIdByKeyHash, keys)
      throw error
    } finally {
      this.#transactionOpen = false
      // An enabled AsyncLocalStorage keeps V8's promise hooks on for the whole process (every
      // await of every call pays for them); the transaction is over, so turn it off until the next.
      this.#inTransaction.disable()
      end()
    }
  }

  /** Wait while another caller's transaction is open. */
  async #writable(): Promise<void> {
    while (this.#transactionOpen && !this.#inTransaction.getStore()) await this.#transactionEnd
  }

  warnings(): string[] {
    if (!this.#anchor) return []
    return [
      `audit_records_dropped: the memory store keeps the newest ${this.#auditMax} audit records (GOV_MEMORY_AUDIT_MAX); records up to seq ${this.#anchor.seq} were dropped. Use PostgreSQL or GOV_DATA_DIR for a complete trail`,
    ]
  }

  auditAnchor(): AuditHead | undefined {
    return this.#anchor && { ...this.#anchor }
  }

  async healthy(): Promise<boolean> {
    return true
  }

  async close(): Promise<void> {}

  async listPipelines(): Promise<PipelineRecord[]> {
    return [...this.#pipelines.values()].sort((a, b) => compareIds(a.pipeline_id, b.pipeline_id)).map(copy)
  }

  async getPipeline(pipelineId: string): Promise<PipelineRecord | undefined> {
    const found = this.#pipelines.get(pipelineId)
    return found && copy(found)
  }

  async createPipeline(input: PipelineInput): Promise<PipelineRecord> {
    await this.#writable()
    if (this.#pipelines.has(input.pipeline_id)) {
      throw pipelineExistsError(input.pipeline_id)
    }
    const now = new Date().toISOString()
    const record: PipelineRecord = {
      pipeline_id: input.pipeline_id,
      preset: input.preset,
      overrides: copy(input.overrides),
      allow_flags: [...input.allow_flags],
      content: { ...(input.content ?? DEFAULT_CONTENT_SETTINGS) },
      version: 1,
      created_at: now,
      updated_at: now,
    }
    this.#pipelines.set(record.pipeline_id, record)
    return copy(record)
  }

  async updatePipeline(input: PipelineInput): Promise<PipelineRecord> {
    await this.#writable()
    const found = this.#pipelines.get(input.pipeline_id)
    if (!found) throw unknownPipelineError(input.pipeline_id)
    const record: PipelineRecord = {
      ...found,
      preset: input.preset,
      overrides: copy(input.overrides),
      allow_flags: [...input.allow_flags],
      content: { ...(input.content ?? DEFAULT_CONTENT_SETTINGS) },
      version: found.version + 1,
      updated_at: new Date().toISOString(),
    }
    this.#pipelines.set(record.pipeline_id, record)
    return copy(record)
  }

  async deletePipeline(pipelineId: string): Promise<void> {
    await this.#writable()
    if (!this.#pipelines.has(pipelineId)) throw unknownPipelineError(pipelineId)
    for (const agent of this.#agents.values()) {
      if (agent.pipeline_id === pipelineId) {
        throw pipelineInUseError(pipelineId)
      }
    }
    this.#pipelines.delete(pipelineId)
  }

  async listAgents(): Promise<AgentRecord[]> {
    return [...this.#agents.values()].sort((a, b) => compareIds(a.agent_id, b.agent_id)).map(copy)
  }

  async getAgent(agentId: string): Promise<AgentRecord | undefined> {
    const found = this.#agents.get(agentId)
    return found && copy(found)
  }

  async getAgentByKeyHash(keyHash: string): Promise<AgentRecord | undefined> {
    const agentId = this.#agentIdByKeyHash.get(keyHash)
    return agentId === undefined ? undefined : this.getAgent(agentId)
  }

  async createAgent(
    agent: { agent_id: string; key_hash: string; key_prefix: string; pipeline_id: string | null },
    seatLimit?: number,
  ): Promise<AgentRecord> {
    await this.#writable()
    // Same order as the SQL store: seats, then unique constraints, then the foreign key.
    if (seatLimit !== undefined && this.#agents.size >= seatLimit) throw seatLimitError(seatLimit)
    if (this.#agents.has(agent.agent_id)) {
      throw agentExistsError(agent.agent_id)
    }
    if (this.#agentIdByKeyHash.has(agent.key_hash)) throw keyInUseError()
    if (agent.pipeline_id !== null && !this.#pipelines.has(agent.pipeline_id)) {
      throw unknownPipelineError(agent.pipeline_id)
    }
    const now = new Date().toISOString()
    const record: AgentRecord = {
      agent_id: agent.agent_id,
      pipeline_id: agent.pipeline_id,
      key_hash: agent.key_hash,
      key_prefix: agent.key_prefix,
      created_at: now,
      updated_at: now,
    }
    this.#agents.set(record.agent_id, record)
    this.#agentIdByKeyHash.set(record.key_hash, record.agent_id)
    return copy(record)
  }

  async deleteAgent(agentId: string): Promise<void> {
    await this.#writable()
    const found = this.#agents.get(agentId)
    if (!found) throw unknownAgentError(agentId)
    this.#agents.delete(agentId)
    this.#agentIdByKeyHash.delete(found.key_hash)
  }

  async assignPipeline(agentId: string, pipelineId: string | null): Promise<AgentRecord> {
    await this.#writable()
    const found = this.#agents.get(agentId)
    if (!found) throw unknownAgentError(agentId)
    if (pipelineId !== null && !this.#pipelines.has(pipelineId)) throw unknownPipelineError(pipelineId)
    const record: AgentRecord = { ...found, pipeline_id: pipelineId, updated_at: new Date().toISOString() }
    this.#agents.set(agentId, record)
    return copy(record)
  }

  async rotateKey(agentId: string, keyHash: string, keyPrefix: string): Promise<AgentRecord> {
    await this.#writable()
    const found = this.#agents.get(agentId)
    if (!found) throw unknownAgentError(agentId)
    const holder = this.#agentIdByKeyHash.get(keyHash)
    if (holder !== undefined && holder !== agentId) throw keyInUseError()
    const record: AgentRecord = {
      ...found,
      key_hash: keyHash,
      key_prefix: keyPrefix,
      updated_at: new Date().toISOString(),
    }
    this.#agentIdByKeyHash.delete(found.key_hash)
    this.#agentIdByKeyHash.set(keyHash, agentId)
    this.#agents.set(agentId, record)
    return copy(record)
  }

  /**
   * Keeps the records `seal` returns as they are, without a copy (one deep
   * copy per call was most of this store's cost per append): from here on
   * they are the store's, and the caller, which gets them back, must not
   * change them (the audit trail only reads them; a change would show as a
   * broken chain in `verify`). Reads copy, as a database would hand out new objects.
   */
  async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
    // Head read, seal and push happen in one synchronous run: no other append can interleave.
    const last = this.#audit.at(-1)
    const records = seal(last && { seq: last.seq, hash: last.hash })
    for (const record of records) this.#audit.push(record)
    if (this.#audit.length > this.#auditMax) this.#dropOldest()
    return records
  }

  async listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    const from = query.from === undefined ? undefined : Date.parse(query.from)
    const to = query.to === undefined ? undefined : Date.parse(query.to)
    const matches = (r: AuditRecord) =>
      (query.agentId === undefined || r.agent_id === query.agentId) &&
      (query.sessionId === undefined || r.session_id === query.sessionId) &&
      (query.outcome === undefined || r.outcome === query.outcome) &&
      (query.kind === undefined || r.kind === query.kind) &&
      (from === undefined || Date.parse(r.time) >= from) &&
      (to === undefined || Date.parse(r.time) < to) &&
      (query.afterSeq === undefined || r.seq > query.afterSeq) &&
      (query.beforeSeq === undefined || r.seq < query.beforeSeq)
    // `seq` n sits at index n - 1 - dropped, so a cursor starts the scan where it points (verify pages in O(n)).
    const dropped = this.#anchor?.seq ?? 0
    const last = this.#audit.length - 1
    const found: AuditRecord[] = []
    if (query.order === 'asc') {
      for (
        let i = Math.max((query.afterSeq ?? 0) - dropped, 0);
        i <= last && found.length < query.limit;
        i++
      ) {
        if (matches(this.#audit[i]!)) found.push(copyRecord(this.#audit[i]!))
      }
    } else {
      for (
        let i = Math.min((query.beforeSeq ?? Infinity) - 2 - dropped, last);
        i >= 0 && found.length < query.limit;
        i--
      ) {
        if (matches(this.#audit[i]!)) found.push(copyRecord(this.#audit[i]!))
      }
    }
    return found
  }

  async saveCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean> {
    if (this.#checkpoints.has(checkpoint.seq)) return false
    this.#checkpoints.set(checkpoint.seq, copy(checkpoint))
    // Bounded like the records: the oldest checkpoints go first.
    if (this.#checkpoints.size > this.#auditMax) {
      const oldest = Math.min(...this.#checkpoints.keys())
      this.#checkpoints.delete(oldest)
    }
    return true
  }

  async listCheckpoints(query: CheckpointQuery): Promise<AuditCheckpoint[]> {
    const found = [...this.#checkpoints.values()]
      .filter(
        (c) =>
          (query.afterSeq === undefined || c.seq > query.afterSeq) &&
          (query.upToSeq === undefined || c.seq <= query.upToSeq),
      )
      .sort((a, b) => (query.order === 'asc' ? a.seq - b.seq : b.seq - a.seq))
    return found.slice(0, query.limit).map(copy)
  }

  /** Drop the oldest tenth of the cap (at least the overflow): one splice per many appends. */
  #dropOldest(): void {
    const count = Math.max(this.#audit.length - this.#auditMax, Math.ceil(this.#auditMax / 10))
    const last = this.#audit[count - 1]!
    this.#anchor = { seq: last.seq, hash: last.hash }
    this.#audit.splice(0, count)
  }
}

function restore<K, V>(target: Map<K, V>, saved: Map<K, V>): void {
  target.clear()
  for (const [key, value] of saved) target.set(key, value)
}

function copy<T>(value: T): T {
  return structuredClone(value)
}

/** Deeper than this, an audit record's copy goes to `structuredClone`. */
const MAX_COPY_DEPTH = 32

/**
 * A deep copy of an audit record, as {@link copy} makes it but several times
 * cheaper on the hot path: a record is plain JSON data (it was hashed as
 * canonical JSON), so plain objects and arrays are copied here, key order
 * kept; anything else (a Date, a function, a cycle past the depth) goes to
 * `structuredClone`, which copies it or throws as before.
 */
function copyRecord<T>(value: T, depth = 0): T {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value
  }
  if (depth > MAX_COPY_DEPTH) return structuredClone(value)
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value)
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copyRecord(value[i], depth + 1)
    return out as T
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return structuredClone(value)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const item = copyRecord((value as Record<string, unknown>)[key], depth + 1)
    // An own `__proto__` key (JSON.parse makes them) stays a key, as structuredClone keeps it.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
    else out[key] = item
  }
  return out as T
}
