/**
 * Embedded Postgres (PGlite) in a data folder. A fresh folder costs an initdb
 * (seconds); reopening one is fast. One process per folder: PGlite takes no lock.
 */

import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import * as tables from './schema.js'
import { checkSchemaName, MIGRATIONS_FOLDER, type SqlConnection } from './sql-connection.js'

/** Options of {@link connectPglite}. */
export interface PgliteOptions {
  dataDir: string
  /** Postgres schema for the tables and the migrations table; created if missing. */
  schema?: string
}

/** Open (or create) the database in `dataDir`. */
export async function connectPglite(options: PgliteOptions): Promise<SqlConnection> {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema)
  await mkdir(options.dataDir, { recursive: true })
  const client = new PGlite(options.dataDir)
  await client.waitReady
  const db = drizzle({ client, schema: tables })
  if (schema) {
    // PGlite is a single session, so setting search_path once covers every later query.
    await db.execute(sql`create schema if not exists ${sql.identifier(schema)}`)
    await db.execute(sql`set search_path to ${sql.identifier(schema)}`)
  }
  return {
    db,
    transaction: (work) => db.transaction((tx) => work(tx)),
    async migrate() {
      await migrate(db, {
        migrationsFolder: MIGRATIONS_FOLDER,
        ...(schema ? { migrationsSchema: schema } : {}),
      })
    },
    async close() {
      await client.close()
    },
  }
}
