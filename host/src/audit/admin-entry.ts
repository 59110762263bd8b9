/**
 * Audit entries of management changes. Recorded after the change succeeded,
 * with the target ids and what changed — pipeline definitions as a SHA-256 of
 * their canonical JSON, never key material.
 */
import type { AdminPrincipal } from '../auth/authorizer.js'
import type { AgentRecord, AuditRecord, PipelineRecord, Store } from '../storage/store.js'
import { canonicalJson, sha256Hex } from './digest.js'
import type { AuditEntry } from './hash-chain.js'

/** Management changes the audit trail records. */
export type AdminAction =
  | 'pipeline.create'
  | 'pipeline.update'
  | 'pipeline.delete'
  | 'pipeline.assign'
  | 'pipeline.import'
  | 'agent.create'
  | 'agent.delete'
  | 'agent.rotate_key'
  | 'secret.invalidate'
  | 'token_key.rotate'
  | 'session.clear'

/** What the management routes need of the audit trail. */
export interface AdminAudit {
  /**
   * Record a change made outside the store (a secret re-read, a key rotation);
   * resolves once the record is durable; rejects with `audit_unavailable`.
   */
  recordAdmin(change: AdminChange): Promise<AuditRecord>
  /**
   * Make a change in the store and record it in one transaction: both are
   * committed, or neither is (503 `audit_unavailable` when the record cannot
   * be written). `describe` turns the change's result into its audit entry.
   */
  commit<T>(work: (store: Store) => Promise<T>, describe: (value: T) => AdminChange): Promise<T>
}

/** One management change that succeeded. */
export interface AdminChange {
  readonly action: AdminAction
  /** Who made it; default `admin`. */
  readonly actor?: string
  /** HTTP status the admin got. */
  readonly status: number
  readonly agentId?: string | null
  readonly pipelineId?: string | null
  readonly pipelineVersion?: number | null
  /** Further facts, JSON values only (ids, names, hashes); never secrets or key material. */
  readonly detail?: Record<string, unknown>
}

/** Build the audit entry of a management change. */
export function adminEntry(change: AdminChange, id: string, time: Date): AuditEntry {
  return {
    id,
    time: time.toISOString(),
    kind: 'admin',
    actor: change.actor ?? 'admin',
    action: change.action,
    outcome: 'success',
    status: change.status,
    agent_id: change.agentId ?? null,
    session_id: null,
    pipeline_id: change.pipelineId ?? null,
    pipeline_version: change.pipelineVersion ?? null,
    request_id: null,
    token_id: null,
    classification: null,
    detail: change.detail ?? {},
  }
}

/**
 * SHA-256 of a pipeline definition's canonical JSON: enough to prove later
 * which definition was in force, without copying it into the trail.
 */
export function definitionHash(definition: {
  preset: string
  overrides: Record<string, unknown>
  allow_flags: readonly string[]
}): string {
  return sha256Hex(
    canonicalJson({
      preset: definition.preset,
      overrides: definition.overrides,
      allow_flags: definition.allow_flags,
    }),
  )
}

/** The `actor` of an admin credential: `admin:<name>`. */
export function adminActor(admin: AdminPrincipal): string {
  return `admin:${admin.name}`
}

/** A change that produced a pipeline record (create, update, import). */
export function pipelineChange(
  admin: AdminPrincipal,
  action: AdminAction,
  status: number,
  pipeline: PipelineRecord,
  extra: Record<string, unknown> = {},
): AdminChange {
  return {
    action,
    actor: adminActor(admin),
    status,
    pipelineId: pipeline.pipeline_id,
    pipelineVersion: pipeline.version,
    detail: { preset: pipeline.preset, definition_sha256: definitionHash(pipeline), ...extra },
  }
}

/** A change that produced an agent record (create, assign, key rotation). Key material is never recorded. */
export function agentChange(
  admin: AdminPrincipal,
  action: AdminAction,
  status: number,
  agent: AgentRecord,
): AdminChange {
  return { action, actor: adminActor(admin), status, agentId: agent.agent_id, pipelineId: agent.pipeline_id }
}

/** A deletion (or another change with only an id to name). */
export function idChange(
  admin: AdminPrincipal,
  action: AdminAction,
  status: number,
  ids: { agentId?: string; pipelineId?: string },
  detail: Record<string, unknown> = {},
): AdminChange {
  return { action, actor: adminActor(admin), status, ...ids, detail }
}
