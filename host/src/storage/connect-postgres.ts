/**
 * PostgreSQL through a `pg` pool. SSL and its modes come from the URL
 * (`?sslmode=require`, `sslrootcert=…`), as libpq users expect.
 */
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import * as tables from './schema.js'
import { checkSchemaName, MIGRATIONS_FOLDER, type SqlConnection } from './sql-connection.js'

/** Options of {@link connectPostgres}. */
export interface PostgresOptions {
  url: string
  /** Postgres schema for the tables and the migrations table; created if missing. */
  schema?: string
  /** Called when an idle pooled connection fails (e.g. the server restarted); the pool reconnects by itself. */
  onError?: (error: Error) => void
}

/** Serialises migrations of all gov replicas on one database: two replicas starting together must not race. */
const MIGRATION_LOCK = 'gov.migrations'

/** Open a pool; nothing is sent until the first query. */
export function connectPostgres(options: PostgresOptions): SqlConnection {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema)
  const pool = new pg.Pool({
    connectionString: options.url,
    connectionTimeoutMillis: 5000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  })
  // Without a listener an idle client's error would crash the process.
  pool.on('error', (error) => options.onError?.(error))
  const db = drizzle({ client: pool, schema: tables })
  return {
    db,
    async migrate() {
      // An advisory lock belongs to one session, so the whole migration runs on one client.
      const client = await pool.connect()
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
        client.release()
      }
    },
    async close() {
      await pool.end()
    },
  }
}
