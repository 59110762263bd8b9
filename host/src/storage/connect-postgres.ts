/**
 * PostgreSQL through a `pg` pool. SSL and its modes come from the URL
 * (`?sslmode=require`, `sslrootcert=…`), as libpq users expect.
 *
 * Two faults must never hurt the process: a connection that drops (the server
 * restarts, an admin terminates the backend) and a server that stalls (a lock,
 * a full disk). Every connection has an error listener for its whole life, and
 * every operation has a deadline (see `storage-settings.ts`).
 */
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import * as tables from './schema.js'
import { checkSchemaName, MIGRATIONS_FOLDER, type SqlConnection } from './sql-connection.js'
import { DEFAULT_STORAGE_SETTINGS } from './storage-settings.js'

/** Options of {@link connectPostgres}. */
export interface PostgresOptions {
  url: string
  /** Postgres schema for the tables and the migrations table; created if missing. */
  schema?: string
  /**
   * Called when a connection fails (the server restarted, the backend was
   * terminated), idle or in use; the query in flight fails and the pool opens a new connection.
   */
  onError?: (error: Error) => void
  /** The server cancels a statement (lock waits included) after this; default 3000 ms. */
  statementTimeoutMs?: number
  /** Connecting, or waiting for a free pooled connection; default 3000 ms. */
  acquireTimeoutMs?: number
  /** Connections in the pool; default 10. */
  poolMax?: number
  /** `application_name` of the connections; default `gov`. */
  applicationName?: string
}

/** Serialises migrations of all gov replicas on one database: two replicas starting together must not race. */
const MIGRATION_LOCK = 'gov.migrations'

/** How much longer than the server's statement timeout the client waits for an answer (a server that stopped answering at all). */
export const CLIENT_GRACE_MS = 1000

/** Open a pool; nothing is sent until the first query. */
export function connectPostgres(options: PostgresOptions): SqlConnection {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema)
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STORAGE_SETTINGS.statementTimeoutMs
  const onError = options.onError ?? (() => {})
  const connection = {
    connectionString: options.url,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_STORAGE_SETTINGS.acquireTimeoutMs,
    application_name: options.applicationName ?? DEFAULT_STORAGE_SETTINGS.applicationName,
    // A server that vanished without closing the socket is noticed by the kernel, not only by the next query.
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  }
  const pool = new pg.Pool({
    ...connection,
    max: options.poolMax ?? DEFAULT_STORAGE_SETTINGS.poolMax,
    statement_timeout: statementTimeoutMs,
    lock_timeout: statementTimeoutMs,
    // A transaction whose client went quiet (its process stalled) must not hold the audit lock for long.
    idle_in_transaction_session_timeout: statementTimeoutMs * 2,
    query_timeout: statementTimeoutMs + CLIENT_GRACE_MS,
  })
  // The pool listens to idle clients only: it removes its listener while a client is
  // checked out (drizzle's transactions, migrations), and an 'error' without a listener
  // ends the process. This listener stays for the client's whole life.
  pool.on('connect', (client) => {
    client.on('error', onError)
  })
  pool.on('error', onError)
  const db = drizzle({ client: pool, schema: tables })
  return {
    db,
    /**
     * Not drizzle's `transaction()`: it sends BEGIN before its try, so a connection
     * that dies right then is never given back and `close()` waits for it forever,
     * and it returns a connection that failed mid-transaction to the pool.
     */
    async transaction(work) {
      const client = await pool.connect()
      // A connection whose BEGIN, COMMIT or ROLLBACK failed is destroyed, never reused.
      let broken: Error | undefined
      const control = async (statement: string) => {
        try {
          await client.query(statement)
        } catch (error) {
          broken ??= error as Error
          throw error
        }
      }
      try {
        await control('begin')
        try {
          const result = await work(drizzle({ client, schema: tables }))
          await control('commit')
          return result
        } catch (error) {
          if (!broken) await control('rollback').catch(() => {})
          throw error
        }
      } finally {
        client.release(broken)
      }
    },
    async migrate() {
      // A client of its own, without deadlines: waiting for another replica's migration,
      // or a long migration, is not a stall. An advisory lock belongs to one session,
      // so the whole migration runs on this client.
      const client = new pg.Client(connection)
      client.on('error', onError)
      await client.connect()
      try {
        await client.query('select pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK])
        try {
          const session = drizzle({ client, schema: tables })
          if (schema) await session.execute(sql`create schema if not exists ${sql.identifier(schema)}`)
          await migrate(session, {
            migrationsFolder: MIGRATIONS_FOLDER,
            ...(schema ? { migrationsSchema: schema } : {}),
          })
        } finally {
          await client.query('select pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK])
        }
      } finally {
        await client.end().catch(() => {})
      }
    },
    async close() {
      await pool.end()
    },
  }
}
