/**
 * Pick the store kind from configuration: PostgreSQL when a URL is given,
 * PGlite when a data folder is, otherwise memory (the embedded default, which
 * `/health` reports as storage `memory`).
 */
import { connectPglite } from './connect-pglite.js'
import { CLIENT_GRACE_MS, connectPostgres } from './connect-postgres.js'
import { MemoryStore } from './memory-store.js'
import { withOutageErrors } from './outage-errors.js'
import { SqlStore } from './sql-store.js'
import type { StorageSettings } from './storage-settings.js'
import { DEFAULT_STORAGE_SETTINGS } from './storage-settings.js'
import type { Store } from './store.js'

/** Options of {@link createStore}: where the data lives, plus deadlines and caps (`readStorageSettings`). */
export interface CreateStoreOptions extends Partial<StorageSettings> {
  /** `postgres://…` (`DATABASE_URL`); wins over `dataDir`. */
  databaseUrl?: string | undefined
  /** PGlite data folder (`GOV_DATA_DIR`), created if missing. */
  dataDir?: string | undefined
  /**
   * Postgres schema holding the tables and the migrations table, created if missing
   * (plain lower-case identifier). Tests use one per run so they never collide.
   */
  schema?: string | undefined
  /** Errors of PostgreSQL connections (dropped, terminated); the pool recovers by itself. */
  onError?: (error: Error) => void
}

/**
 * Build the store; call `init()` on it to connect and apply migrations. On
 * PostgreSQL an operation that fails for an outage (unreachable, past its
 * deadline, terminated) rejects with 503 `storage_unavailable`.
 */
export function createStore(options: CreateStoreOptions = {}): Store {
  const { databaseUrl, dataDir, schema, onError } = options
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STORAGE_SETTINGS.statementTimeoutMs
  if (databaseUrl) {
    return withOutageErrors(
      new SqlStore(
        'postgres',
        () =>
          connectPostgres({
            url: databaseUrl,
            statementTimeoutMs,
            ...(schema ? { schema } : {}),
            ...(onError ? { onError } : {}),
            ...(options.acquireTimeoutMs ? { acquireTimeoutMs: options.acquireTimeoutMs } : {}),
            ...(options.poolMax ? { poolMax: options.poolMax } : {}),
            ...(options.applicationName ? { applicationName: options.applicationName } : {}),
          }),
        // The client's own bound on one statement: the server's timeout plus the grace connectPostgres gives it.
        statementTimeoutMs + CLIENT_GRACE_MS,
      ),
    )
  }
  if (dataDir) {
    // In process: no server to stall, so no statement deadline (the audit trail keeps its own).
    return new SqlStore('pglite', () => connectPglite({ dataDir, ...(schema ? { schema } : {}) }))
  }
  return new MemoryStore({ auditMax: options.memoryAuditMax ?? DEFAULT_STORAGE_SETTINGS.memoryAuditMax })
}
