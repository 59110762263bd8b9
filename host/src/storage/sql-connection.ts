/**
 * What the SQL store needs from a database kind: a drizzle database over the
 * shared schema, a way to apply the migrations, and a way to let go.
 * `connect-postgres.ts` and `connect-pglite.ts` provide it.
 */

import { fileURLToPath } from 'node:url'
import { GovError } from '@gov/core'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type * as tables from './schema.js'

/** A drizzle database over the gov schema; the common type of the node-postgres and PGlite drivers. */
export type GovDatabase = PgDatabase<PgQueryResultHKT, typeof tables>

/** An open database of one kind. */
export interface SqlConnection {
  readonly db: GovDatabase
  /** Apply every migration of `host/drizzle/` not yet applied (creating the schema first if one is set). */
  migrate(): Promise<void>
  /** Run `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: GovDatabase) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * The migrations folder, `host/drizzle/`, found from the compiled module
 * (`host/dist/src/storage/`) so it works from any working directory.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../drizzle', import.meta.url))

/** Code of the error thrown for a schema name that is not a plain lower-case identifier. */
export const SCHEMA_INVALID = 'GOV_ERR_STORAGE_SCHEMA_INVALID'

/**
 * Check a Postgres schema name. Only plain lower-case identifiers are accepted:
 * the name goes unquoted into `search_path`, where Postgres would fold case.
 */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new GovError(SCHEMA_INVALID, `invalid schema name ${JSON.stringify(schema)}`, 500, { schema })
  }
  return schema
}
