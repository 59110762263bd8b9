/**
 * Storage of pipelines and agents. One interface, three kinds:
 * `memory` (plain maps, the embedded default; nothing survives a restart),
 * `pglite` (embedded Postgres in a data folder, `GOV_DATA_DIR`) and `postgres`
 * (`DATABASE_URL`). The two SQL kinds share one drizzle schema and migrations.
 */

/** Settings overrides of a pipeline: step name → settings object, or `{ disabled: true }`. */
export type Overrides = Record<string, Record<string, unknown>>

/** A stored pipeline. */
export interface PipelineRecord {
  pipeline_id: string
  preset: string
  overrides: Overrides
  /** Caller flags that may relax governance for agents on this pipeline (e.g. `mode`, `pii`). */
  allow_flags: string[]
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

/**
 * Errors: methods throw GovError with status 409 and code `conflict` for a
 * duplicate id or for deleting a pipeline that agents still use; 404 `not_found`
 * for unknown ids on update/assign/rotate; 403 `seat_limit_exceeded` from
 * `createAgent` when `seatLimit` agents already exist (checked atomically).
 */
export interface Store {
  readonly kind: StorageKind
  /** Connect and apply migrations. */
  init(): Promise<void>
  /** True when the store answers (a `select 1` for SQL kinds). */
  healthy(): Promise<boolean>
  close(): Promise<void>

  listPipelines(): Promise<PipelineRecord[]>
  getPipeline(pipelineId: string): Promise<PipelineRecord | undefined>
  createPipeline(input: PipelineInput): Promise<PipelineRecord>
  /** Replace preset, overrides and allow_flags; bumps version. */
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
}
