/**
 * The drizzle schema shared by the `pglite` and `postgres` store kinds.
 * Migrations in `host/drizzle/` are generated from this file with drizzle-kit
 * (`npx drizzle-kit generate` in `host/`); never edit applied migrations, add new ones.
 */
import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import type { Overrides } from './store.js'

/** Pipelines: a preset plus per-step overrides; `version` grows on every update. */
export const pipelines = pgTable('pipelines', {
  pipelineId: text('pipeline_id').primaryKey(),
  preset: text('preset').notNull(),
  overrides: jsonb('overrides').$type<Overrides>().notNull(),
  allowFlags: jsonb('allow_flags').$type<string[]>().notNull(),
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
