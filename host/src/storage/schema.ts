/**
 * The drizzle schema shared by the `pglite` and `postgres` store kinds.
 * Migrations in `host/drizzle/` are generated from this file with drizzle-kit
 * (`npx drizzle-kit generate` in `host/`); never edit applied migrations, add new ones.
 */
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import type { ContentSettings, Overrides } from './store.js'

/** Pipelines: a preset plus per-step overrides; `version` grows on every update. */
export const pipelines = pgTable('pipelines', {
  pipelineId: text('pipeline_id').primaryKey(),
  preset: text('preset').notNull(),
  overrides: jsonb('overrides').$type<Overrides>().notNull(),
  allowFlags: jsonb('allow_flags').$type<string[]>().notNull(),
  /** Media and unknown blocks: see `ContentSettings`. Rows older than the column read as the defaults. */
  content: jsonb('content')
    .$type<ContentSettings>()
    .notNull()
    .default({ media: 'pass', unknown_blocks: 'refuse' }),
  version: integer('version').notNull().default(1),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

/** Agents: identified by id, authenticated by the SHA-256 hash of their API key. */
export const agents = pgTable(
  'agents',
  {
    agentId: text('agent_id').primaryKey(),
    // `restrict`: a pipeline still assigned to an agent cannot be deleted.
    pipelineId: text('pipeline_id').references(() => pipelines.pipelineId, {
      onDelete: 'restrict',
      onUpdate: 'restrict',
    }),
    keyHash: text('key_hash').notNull().unique(),
    keyPrefix: text('key_prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  // Listing the agents of a pipeline (cache invalidation on pipeline change) needs this.
  (table) => [index('agents_pipeline_id_idx').on(table.pipelineId)],
)

/**
 * The audit trail: one SHA-256 hash chain ordered by `seq`. Every column but
 * `hash` is covered by `hash`, so the filter columns cannot be edited unseen.
 * Writers serialise on an advisory lock (see `SqlStore.appendAudit`), which
 * keeps `seq` gapless without a sequence.
 */
export const auditRecords = pgTable(
  'audit_records',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey(),
    id: text('id').notNull().unique(),
    time: timestamp('time', { withTimezone: true, mode: 'date' }).notNull(),
    kind: text('kind').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    outcome: text('outcome').notNull(),
    status: integer('status').notNull(),
    agentId: text('agent_id'),
    sessionId: text('session_id'),
    pipelineId: text('pipeline_id'),
    pipelineVersion: integer('pipeline_version'),
    requestId: text('request_id'),
    tokenId: text('token_id'),
    classification: text('classification'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  // `GET /audit` filters by agent or session and pages by seq, or by time range.
  (table) => [
    index('audit_records_agent_seq_idx').on(table.agentId, table.seq),
    index('audit_records_session_seq_idx').on(table.sessionId, table.seq),
    index('audit_records_time_idx').on(table.time),
  ],
)

/**
 * Signed checkpoints of the audit chain (`host/src/audit/checkpoint.ts`): one
 * per head `seq`, so replicas that sign the same head store it once.
 */
export const auditCheckpoints = pgTable('audit_checkpoints', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  hash: text('hash').notNull(),
  recordId: text('record_id').notNull(),
  recordTime: timestamp('record_time', { withTimezone: true, mode: 'date' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  kid: text('kid').notNull(),
  jws: text('jws').notNull(),
})
