/**
 * Storage of pipelines, agents and the audit trail. One interface, three kinds:
 * `memory` (plain maps, the embedded default; nothing survives a restart),
 * `pglite` (embedded Postgres in a data folder, `GOV_DATA_DIR`) and `postgres`
 * (`DATABASE_URL`). The two SQL kinds share one drizzle schema and migrations.
 */

/** Settings overrides of a pipeline: step name → settings object, or `{ disabled: true }`. */
export type Overrides = Record<string, Record<string, unknown>>

/**
 * What a pipeline does with request content gov cannot scan: `media` (images,
 * audio, base64 PDFs, files by id) passes with an `unscanned_content` finding
 * or is refused; a block type gov does not know is refused (400
 * `unsupported_content`) unless `unknown_blocks` is `pass`.
 */
export interface ContentSettings {
  media: 'pass' | 'refuse'
  unknown_blocks: 'refuse' | 'pass'
  /** How a streamed answer leaves: `held` (whole, after every check; the default) or `windowed` (see `gateway/windowed-stream.ts`). */
  stream_release?: 'held' | 'windowed'
  /** Windowed release: new answer characters between two checks of the prefix (default 160). */
  stream_window_chars?: number
  /** Windowed release: characters at the end of the checked prefix held back until a later window (default 64). */
  stream_hold_chars?: number
}

/** The content settings of a pipeline that sets none. */
export const DEFAULT_CONTENT_SETTINGS: Readonly<ContentSettings> = Object.freeze({
  media: 'pass',
  unknown_blocks: 'refuse',
})

/** A stored pipeline. */
export interface PipelineRecord {
  pipeline_id: string
  preset: string
  overrides: Overrides
  /** Caller flags that may relax governance for agents on this pipeline (e.g. `mode`, `pii`). */
  allow_flags: string[]
  /** Content gov cannot scan: media and unknown blocks (defaults filled in). */
  content: ContentSettings
  /** Starts at 1; every update adds 1. Chains are cached per (pipeline_id, version). */
  version: number
  created_at: string
  updated_at: string
}

/** Fields a caller sets on create or update. */
export interface PipelineInput {
  pipeline_id: string
  preset: string
  overrides: Overrides
  allow_flags: string[]
  /** {@link DEFAULT_CONTENT_SETTINGS} when absent. */
  content?: ContentSettings
}

/** A stored agent. The API key itself is never stored, only its SHA-256 hash. */
export interface AgentRecord {
  agent_id: string
  /** Assigned pipeline, or null. */
  pipeline_id: string | null
  /** Hex SHA-256 of the API key. */
  key_hash: string
  /** First characters of the key, to help humans tell keys apart (`gov_ab12…`). */
  key_prefix: string
  created_at: string
  updated_at: string
}

export type StorageKind = 'memory' | 'pglite' | 'postgres'

/** `call`: one governed model call; `admin`: one management change. */
export type AuditKind = 'call' | 'admin'

/**
 * One record of the audit trail: metadata and decisions, never raw prompt or
 * answer text (texts appear only as SHA-256 hashes). Every field except `hash`
 * is covered by `hash`; see `host/src/audit/hash-chain.ts` for the formula.
 * Absent values are `null`, never missing, so the hashed form is fixed.
 */
export interface AuditRecord {
  /** Position in the one chain, 1, 2, 3, … without gaps. */
  seq: number
  /** Unique id of the record (UUID). */
  id: string
  /** When the event happened (ISO 8601, UTC, milliseconds). */
  time: string
  kind: AuditKind
  /** Who: `agent:<agent_id>`, `admin`, or `anonymous` for a call that never authenticated. */
  actor: string
  /** What: `gateway.call`, `pipeline.create`, `agent.rotate_key`, … */
  action: string
  /** Calls: `allowed`, `blocked`, `observed`, `error`; management changes: `success`. */
  outcome: string
  /** HTTP status the caller got. */
  status: number
  agent_id: string | null
  session_id: string | null
  pipeline_id: string | null
  pipeline_version: number | null
  /** The call's `x-request-id`. */
  request_id: string | null
  /** Id of the capability token minted for the call. */
  token_id: string | null
  /** Classification level of the call. */
  classification: string | null
  /** Kind-specific facts (steps and verdicts, finding counts, timings, text hashes, change targets). */
  detail: Record<string, unknown>
  /** `hash` of the record before (64 zeros for seq 1). */
  prev_hash: string
  /** Lower-case hex SHA-256 over the canonical JSON of every other field. */
  hash: string
}

/** The last record of the chain: what the next record links to. */
export interface AuditHead {
  seq: number
  hash: string
}

/**
 * A signed checkpoint of the audit chain: the head at one moment, signed with
 * the capability token key (see `host/src/audit/checkpoint.ts`). The columns
 * repeat what the signed `jws` payload says, for listing.
 */
export interface AuditCheckpoint {
  /** `seq` of the head record, which is also the number of records up to it. */
  seq: number
  /** `hash` of the head record. */
  hash: string
  /** `id` of the head record. */
  record_id: string
  /** `time` of the head record (ISO 8601). */
  record_time: string
  /** When the checkpoint was signed (ISO 8601). */
  created_at: string
  /** Key id of the signing key (in the gateway's JWKS). */
  kid: string
  /** Compact JWS over the checkpoint; its payload is authoritative. */
  jws: string
}

/** Paging of {@link Store.listCheckpoints}: by `seq`. */
export interface CheckpointQuery {
  /** Only checkpoints with `seq` greater than this. */
  afterSeq?: number
  /** Only checkpoints with `seq` at most this. */
  upToSeq?: number
  order: 'asc' | 'desc'
  limit: number
}

/** Filters and paging of {@link Store.listAudit}. Every filter is optional. */
export interface AuditQuery {
  agentId?: string
  sessionId?: string
  outcome?: string
  kind?: AuditKind
  /** Records at or after this time (ISO 8601). */
  from?: string
  /** Records before this time (ISO 8601). */
  to?: string
  /** Only records with `seq` greater than this (ascending paging). */
  afterSeq?: number
  /** Only records with `seq` less than this (descending paging). */
  beforeSeq?: number
  /** By `seq`. */
  order: 'asc' | 'desc'
  limit: number
}

/**
 * Errors: methods throw GovError with status 409 and code `conflict` for a
 * duplicate id or for deleting a pipeline that agents still use; 404 `not_found`
 * for unknown ids on update/assign/rotate; 403 `seat_limit_exceeded` from
 * `createAgent` when `seatLimit` agents already exist (checked atomically).
 */
export interface Store {
  readonly kind: StorageKind
  /**
   * The deadline of one operation, in ms, when the store has one (SQL kinds:
   * `GOV_DB_STATEMENT_TIMEOUT_MS`). The audit trail fails an append that takes longer.
   */
  readonly deadlineMs?: number
  /** Conditions an operator should know about (e.g. audit records dropped by a cap), for `/health`. */
  warnings?(): string[]
  /**
   * When the oldest records of the chain were dropped (the memory store's cap):
   * the last dropped record, which the oldest kept one links to. Verification starts there.
   */
  auditAnchor?(): AuditHead | undefined
  /**
   * Run `work` atomically against the store it is given: every change it makes
   * (audit appends included) is kept when it resolves and undone when it throws.
   * Management changes use it to commit a change and its audit record together.
   */
  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T>
  /** Connect and apply migrations. */
  init(): Promise<void>
  /** True when the store answers (a `select 1` for SQL kinds). */
  healthy(): Promise<boolean>
  close(): Promise<void>

  listPipelines(): Promise<PipelineRecord[]>
  getPipeline(pipelineId: string): Promise<PipelineRecord | undefined>
  createPipeline(input: PipelineInput): Promise<PipelineRecord>
  /** Replace preset, overrides, allow_flags and content; bumps version. */
  updatePipeline(input: PipelineInput): Promise<PipelineRecord>
  deletePipeline(pipelineId: string): Promise<void>

  listAgents(): Promise<AgentRecord[]>
  getAgent(agentId: string): Promise<AgentRecord | undefined>
  getAgentByKeyHash(keyHash: string): Promise<AgentRecord | undefined>
  createAgent(
    agent: { agent_id: string; key_hash: string; key_prefix: string; pipeline_id: string | null },
    seatLimit?: number,
  ): Promise<AgentRecord>
  deleteAgent(agentId: string): Promise<void>
  assignPipeline(agentId: string, pipelineId: string | null): Promise<AgentRecord>
  rotateKey(agentId: string, keyHash: string, keyPrefix: string): Promise<AgentRecord>

  /**
   * Append to the audit chain: with every other writer of this database shut
   * out (one process or many), read the chain's head, insert the records `seal`
   * builds on it, and commit them together; they are durable when this resolves.
   * If `seal` throws, nothing is written.
   */
  appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]>
  /** Audit records matching `query`, ordered by `seq`. */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>
  /**
   * Keep a signed checkpoint. Resolves false, storing nothing, when a
   * checkpoint of that `seq` exists already (another replica signed the same head).
   */
  saveCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean>
  /** Checkpoints matching `query`, ordered by `seq`. */
  listCheckpoints(query: CheckpointQuery): Promise<AuditCheckpoint[]>
}
