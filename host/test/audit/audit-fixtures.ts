/**
 * Shared pieces of the audit tests: entries with chosen fields, and raw SQL
 * access to a store's schema for tampering "directly in the database".
 */
import { randomUUID } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import type { AuditEntry } from '../../src/audit/hash-chain.js'

/** A call entry; every field can be overridden. */
export function callEntryOf(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    kind: 'call',
    actor: 'agent:a-1',
    action: 'gateway.call',
    outcome: 'allowed',
    status: 200,
    agent_id: 'a-1',
    session_id: null,
    pipeline_id: 'p-1',
    pipeline_version: 1,
    request_id: randomUUID(),
    token_id: null,
    classification: 'public',
    detail: {
      vendor: 'openai',
      model: 'gpt-4o-mini',
      request_sha256: 'ab'.repeat(32),
      duration_ms: 1.234,
      decisions: [{ step: 'detect_pii', phase: 'request', verdict: 'continue', code: null, ms: 0.05 }],
      findings: [{ step: 'detect_pii', type: 'EMAIL_ADDRESS', level: 'confidential', count: 2 }],
      note: 'naïve “quotes” \u00e9 😀',
    },
    ...overrides,
  }
}

/** Runs SQL statements against one schema of a store's database. */
export type SqlExec = (schema: string, statements: string[]) => Promise<void>

/** Raw access to a PostgreSQL schema. */
export function postgresExec(url: string): SqlExec {
  return async (schema, statements) => {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` })
    await client.connect()
    try {
      for (const statement of statements) await client.query(statement)
    } finally {
      await client.end()
    }
  }
}

/** Raw access to a PGlite folder; the store on it must be closed first (one process per folder). */
export function pgliteExec(dataDir: string): SqlExec {
  return async (schema, statements) => {
    const client = new PGlite(dataDir)
    try {
      await client.exec(`set search_path to "${schema}"`)
      for (const statement of statements) await client.exec(statement)
    } finally {
      await client.close()
    }
  }
}
