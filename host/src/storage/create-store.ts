/**
 * Pick the store kind from configuration: PostgreSQL when a URL is given,
 * PGlite when a data folder is, otherwise memory (the embedded default, which
 * `/health` reports as storage `memory`).
 */
import { connectPglite } from './connect-pglite.js'
import { connectPostgres } from './connect-postgres.js'
import { MemoryStore } from './memory-store.js'
import { SqlStore } from './sql-store.js'
import type { Store } from './store.js'

/** Options of {@link createStore}. */
export interface CreateStoreOptions {
  /** `postgres://…` (`DATABASE_URL`); wins over `dataDir`. */
  databaseUrl?: string
  /** PGlite data folder (`GOV_DATA_DIR`), created if missing. */
  dataDir?: string
  /**
   * Postgres schema holding the tables and the migrations table, created if missing
   * (plain lower-case identifier). Tests use one per run so they never collide.
   */
  schema?: string
  /** Errors of idle PostgreSQL connections, which the pool recovers from by itself. */
  onError?: (error: Error) => void
}

/** Build the store; call `init()` on it to connect and apply migrations. */
export function createStore(options: CreateStoreOptions = {}): Store {
  const { databaseUrl, dataDir, schema, onError } = options
  if (databaseUrl) {
    return new SqlStore('postgres', () =>
      connectPostgres({ url: databaseUrl, ...(schema ? { schema } : {}), ...(onError ? { onError } : {}) }),
    )
  }
  if (dataDir) return new SqlStore('pglite', () => connectPglite({ dataDir, ...(schema ? { schema } : {}) }))
  return new MemoryStore()
}
