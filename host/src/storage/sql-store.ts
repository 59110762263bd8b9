/**
 * The SQL store: one class over drizzle for both `postgres` and `pglite`; the
 * kinds differ only in how they connect (see `connect-*.ts`). Every check that
 * must hold under concurrency is left to the database — constraints, a table
 * lock for the seat limit — and its errors are turned into the same coded
 * errors the memory store throws.
 */
import { GovError } from '@gov/core'
import { and, asc, count, desc, eq, gt, gte, lt, lte, type SQL, sql } from 'drizzle-orm'
import { agents, auditCheckpoints, auditRecords, pipelines } from './schema.js'
import type { GovDatabase, SqlConnection } from './sql-connection.js'
import { readSqlError, SqlState } from './sql-errors.js'
import type {
  AgentRecord,
  AuditCheckpoint,
  AuditHead,
  AuditKind,
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

/** Code of the error thrown when a SQL store is used before `init()` or after `close()`. */
export const STORE_NOT_OPEN = 'GOV_ERR_STORAGE_NOT_OPEN'

const HEALTH_TIMEOUT_MS = 2000

/**
 * Advisory lock key of the audit chain, per schema (`current_schema()` is
 * prepended), so schemas on one database keep separate chains without waiting
 * on each other.
 */
const AUDIT_LOCK = ':gov.audit'

type PipelineRow = typeof pipelines.$inferSelect
type AgentRow = typeof agents.$inferSelect
type AuditRow = typeof auditRecords.$inferSelect

/** A {@link Store} over PostgreSQL or PGlite. Call `init()` first: it connects and migrates. */
export class SqlStore implements Store {
  #connection: SqlConnection | undefined

  /**
   * @param kind which database this is, as `/health` reports it
   * @param connect opens the database; called by `init()`
   * @param deadlineMs the statement timeout the connection enforces (see {@link Store.deadlineMs})
   */
  constructor(
    readonly kind: 'postgres' | 'pglite',
    private readonly connect: () => SqlConnection | Promise<SqlConnection>,
    readonly deadlineMs?: number,
  ) {}

  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    return this.#transaction((tx) => work(SqlStore.#bound(this.kind, tx, this.deadlineMs)))
  }

  /** A store whose every operation runs inside the open transaction `tx` (nested transactions join it). */
  static #bound(kind: 'postgres' | 'pglite', tx: GovDatabase, deadlineMs: number | undefined): SqlStore {
    const store = new SqlStore(
      kind,
      () => Promise.reject(new Error('a transaction store is already open')),
      deadlineMs,
    )
    store.#connection = {
      db: tx,
      transaction: (work) => work(tx),
      migrate: async () => {},
      close: async () => {},
    }
    return store
  }

  async init(): Promise<void> {
    if (this.#connection) return
    const connection = await this.connect()
    try {
      await connection.migrate()
    } catch (error) {
      await connection.close().catch(() => {})
      throw error
    }
    this.#connection = connection
  }

  async healthy(): Promise<boolean> {
    if (!this.#connection) return false
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS)
    })
    const probe = this.#connection.db.execute(sql`select 1`).then(
      () => true,
      () => false,
    )
    try {
      return await Promise.race([probe, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection
    this.#connection = undefined
    await connection?.close()
  }

  async listPipelines(): Promise<PipelineRecord[]> {
    const rows = await this.#db().select().from(pipelines).orderBy(byteOrder(pipelines.pipelineId))
    return rows.map(toPipeline)
  }

  async getPipeline(pipelineId: string): Promise<PipelineRecord | undefined> {
    const [row] = await this.#db().select().from(pipelines).where(eq(pipelines.pipelineId, pipelineId))
    return row && toPipeline(row)
  }

  async createPipeline(input: PipelineInput): Promise<PipelineRecord> {
    const now = new Date()
    try {
      const [row] = await this.#db()
        .insert(pipelines)
        .values({
          pipelineId: input.pipeline_id,
          preset: input.preset,
          overrides: input.overrides,
          allowFlags: input.allow_flags,
          content: input.content ?? DEFAULT_CONTENT_SETTINGS,
          version: 1,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
      return toPipeline(row!)
    } catch (error) {
      if (readSqlError(error)?.code === SqlState.UNIQUE_VIOLATION) {
        throw pipelineExistsError(input.pipeline_id)
      }
      throw error
    }
  }

  async updatePipeline(input: PipelineInput): Promise<PipelineRecord> {
    const [row] = await this.#db()
      .update(pipelines)
      .set({
        preset: input.preset,
        overrides: input.overrides,
        allowFlags: input.allow_flags,
        content: input.content ?? DEFAULT_CONTENT_SETTINGS,
        version: sql`${pipelines.version} + 1`,
        updatedAt: new Date(),
      })
      .where(eq(pipelines.pipelineId, input.pipeline_id))
      .returning()
    if (!row) throw unknownPipelineError(input.pipeline_id)
    return toPipeline(row)
  }

  async deletePipeline(pipelineId: string): Promise<void> {
    let deleted: unknown[]
    try {
      deleted = await this.#db()
        .delete(pipelines)
        .where(eq(pipelines.pipelineId, pipelineId))
        .returning({ id: pipelines.pipelineId })
    } catch (error) {
      const code = readSqlError(error)?.code
      if (code === SqlState.FOREIGN_KEY_VIOLATION || code === SqlState.RESTRICT_VIOLATION) {
        throw pipelineInUseError(pipelineId)
      }
      throw error
    }
    if (!deleted.length) throw unknownPipelineError(pipelineId)
  }

  async listAgents(): Promise<AgentRecord[]> {
    const rows = await this.#db().select().from(agents).orderBy(byteOrder(agents.agentId))
    return rows.map(toAgent)
  }

  async getAgent(agentId: string): Promise<AgentRecord | undefined> {
    const [row] = await this.#db().select().from(agents).where(eq(agents.agentId, agentId))
    return row && toAgent(row)
  }

  async getAgentByKeyHash(keyHash: string): Promise<AgentRecord | undefined> {
    const [row] = await this.#db().select().from(agents).where(eq(agents.keyHash, keyHash))
    return row && toAgent(row)
  }

  async createAgent(
    agent: { agent_id: string; key_hash: string; key_prefix: string; pipeline_id: string | null },
    seatLimit?: number,
  ): Promise<AgentRecord> {
    const now = new Date()
    const values = {
      agentId: agent.agent_id,
      pipelineId: agent.pipeline_id,
      keyHash: agent.key_hash,
      keyPrefix: agent.key_prefix,
      createdAt: now,
      updatedAt: now,
    }
    try {
      if (seatLimit === undefined) {
        const [row] = await this.#db().insert(agents).values(values).returning()
        return toAgent(row!)
      }
      return await this.#transaction(async (tx) => {
        // SHARE ROW EXCLUSIVE conflicts with itself and with every insert, so the
        // count below stays true until this transaction commits.
        await tx.execute(sql`lock table ${agents} in share row exclusive mode`)
        const [seats] = await tx.select({ n: count() }).from(agents)
        if (seats!.n >= seatLimit) throw seatLimitError(seatLimit)
        const [row] = await tx.insert(agents).values(values).returning()
        return toAgent(row!)
      })
    } catch (error) {
      const failure = readSqlError(error)
      if (failure?.code === SqlState.UNIQUE_VIOLATION) {
        if (failure.constraint === 'agents_key_hash_unique') throw keyInUseError()
        throw agentExistsError(agent.agent_id)
      }
      if (failure?.code === SqlState.FOREIGN_KEY_VIOLATION && agent.pipeline_id !== null) {
        throw unknownPipelineError(agent.pipeline_id)
      }
      throw error
    }
  }

  async deleteAgent(agentId: string): Promise<void> {
    const deleted = await this.#db()
      .delete(agents)
      .where(eq(agents.agentId, agentId))
      .returning({ id: agents.agentId })
    if (!deleted.length) throw unknownAgentError(agentId)
  }

  async assignPipeline(agentId: string, pipelineId: string | null): Promise<AgentRecord> {
    let row: AgentRow | undefined
    try {
      ;[row] = await this.#db()
        .update(agents)
        .set({ pipelineId, updatedAt: new Date() })
        .where(eq(agents.agentId, agentId))
        .returning()
    } catch (error) {
      if (readSqlError(error)?.code === SqlState.FOREIGN_KEY_VIOLATION && pipelineId !== null) {
        throw unknownPipelineError(pipelineId)
      }
      throw error
    }
    if (!row) throw unknownAgentError(agentId)
    return toAgent(row)
  }

  async rotateKey(agentId: string, keyHash: string, keyPrefix: string): Promise<AgentRecord> {
    let row: AgentRow | undefined
    try {
      ;[row] = await this.#db()
        .update(agents)
        .set({ keyHash, keyPrefix, updatedAt: new Date() })
        .where(eq(agents.agentId, agentId))
        .returning()
    } catch (error) {
      if (readSqlError(error)?.code === SqlState.UNIQUE_VIOLATION) throw keyInUseError()
      throw error
    }
    if (!row) throw unknownAgentError(agentId)
    return toAgent(row)
  }

  async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
    return this.#transaction(async (tx) => {
      // Held until commit: every writer of this schema, in any process, reads the head
      // only after the previous writer's records are committed, so the chain never forks.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(current_schema() || ${AUDIT_LOCK}))`)
      const [head] = await tx
        .select({ seq: auditRecords.seq, hash: auditRecords.hash })
        .from(auditRecords)
        .orderBy(desc(auditRecords.seq))
        .limit(1)
      const records = seal(head)
      if (records.length > 0) await tx.insert(auditRecords).values(records.map(toAuditRow))
      return records
    })
  }

  async listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    const where: SQL[] = []
    if (query.agentId !== undefined) where.push(eq(auditRecords.agentId, query.agentId))
    if (query.sessionId !== undefined) where.push(eq(auditRecords.sessionId, query.sessionId))
    if (query.outcome !== undefined) where.push(eq(auditRecords.outcome, query.outcome))
    if (query.kind !== undefined) where.push(eq(auditRecords.kind, query.kind))
    if (query.from !== undefined) where.push(gte(auditRecords.time, new Date(query.from)))
    if (query.to !== undefined) where.push(lt(auditRecords.time, new Date(query.to)))
    if (query.afterSeq !== undefined) where.push(gt(auditRecords.seq, query.afterSeq))
    if (query.beforeSeq !== undefined) where.push(lt(auditRecords.seq, query.beforeSeq))
    const rows = await this.#db()
      .select()
      .from(auditRecords)
      .where(and(...where))
      .orderBy(query.order === 'asc' ? asc(auditRecords.seq) : desc(auditRecords.seq))
      .limit(query.limit)
    return rows.map(toAuditRecord)
  }

  async saveCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean> {
    const inserted = await this.#db()
      .insert(auditCheckpoints)
      .values({
        seq: checkpoint.seq,
        hash: checkpoint.hash,
        recordId: checkpoint.record_id,
        recordTime: new Date(checkpoint.record_time),
        createdAt: new Date(checkpoint.created_at),
        kid: checkpoint.kid,
        jws: checkpoint.jws,
      })
      .onConflictDoNothing({ target: auditCheckpoints.seq })
      .returning({ seq: auditCheckpoints.seq })
    return inserted.length > 0
  }

  async listCheckpoints(query: CheckpointQuery): Promise<AuditCheckpoint[]> {
    const where: SQL[] = []
    if (query.afterSeq !== undefined) where.push(gt(auditCheckpoints.seq, query.afterSeq))
    if (query.upToSeq !== undefined) where.push(lte(auditCheckpoints.seq, query.upToSeq))
    const rows = await this.#db()
      .select()
      .from(auditCheckpoints)
      .where(and(...where))
      .orderBy(query.order === 'asc' ? asc(auditCheckpoints.seq) : desc(auditCheckpoints.seq))
      .limit(query.limit)
    return rows.map((row) => ({
      seq: row.seq,
      hash: row.hash,
      record_id: row.recordId,
      record_time: row.recordTime.toISOString(),
      created_at: row.createdAt.toISOString(),
      kid: row.kid,
      jws: row.jws,
    }))
  }

  #transaction<T>(work: (tx: GovDatabase) => Promise<T>): Promise<T> {
    if (!this.#connection) throw new GovError(STORE_NOT_OPEN, `${this.kind} store is not open`, 503)
    return this.#connection.transaction(work)
  }

  #db(): GovDatabase {
    if (!this.#connection) throw new GovError(STORE_NOT_OPEN, `${this.kind} store is not open`, 503)
    return this.#connection.db
  }
}

/** `ORDER BY … COLLATE "C"`: byte order, independent of the database locale, as `compareIds` orders the memory store. */
function byteOrder(column: typeof pipelines.pipelineId | typeof agents.agentId) {
  return sql`${column} collate "C"`
}

function toPipeline(row: PipelineRow): PipelineRecord {
  return {
    pipeline_id: row.pipelineId,
    preset: row.preset,
    overrides: row.overrides,
    allow_flags: row.allowFlags,
    content: { ...DEFAULT_CONTENT_SETTINGS, ...row.content },
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

function toAgent(row: AgentRow): AgentRecord {
  return {
    agent_id: row.agentId,
    pipeline_id: row.pipelineId,
    key_hash: row.keyHash,
    key_prefix: row.keyPrefix,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

function toAuditRow(record: AuditRecord): AuditRow {
  return {
    seq: record.seq,
    id: record.id,
    time: new Date(record.time),
    kind: record.kind,
    actor: record.actor,
    action: record.action,
    outcome: record.outcome,
    status: record.status,
    agentId: record.agent_id,
    sessionId: record.session_id,
    pipelineId: record.pipeline_id,
    pipelineVersion: record.pipeline_version,
    requestId: record.request_id,
    tokenId: record.token_id,
    classification: record.classification,
    detail: record.detail,
    prevHash: record.prev_hash,
    hash: record.hash,
  }
}

/** Read a row back as written; a row edited in the database reads back edited, so verification sees it. */
function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    seq: row.seq,
    id: row.id,
    time: row.time.toISOString(),
    kind: row.kind as AuditKind,
    actor: row.actor,
    action: row.action,
    outcome: row.outcome,
    status: row.status,
    agent_id: row.agentId,
    session_id: row.sessionId,
    pipeline_id: row.pipelineId,
    pipeline_version: row.pipelineVersion,
    request_id: row.requestId,
    token_id: row.tokenId,
    classification: row.classification,
    detail: row.detail,
    prev_hash: row.prevHash,
    hash: row.hash,
  }
}
