/**
 * Deadlines and caps of the stores, read from the environment. Every database
 * operation has a deadline, so a stalled PostgreSQL makes a call fail fast
 * (503) instead of hanging for the whole stall.
 *
 * | variable                      | default | meaning                                                            |
 * |-------------------------------|---------|--------------------------------------------------------------------|
 * | `GOV_DB_STATEMENT_TIMEOUT_MS` | 3000    | server cancels a statement (lock waits included) after this; the client gives up 1 s later; an audit append (queue + commit) fails after this |
 * | `GOV_DB_ACQUIRE_TIMEOUT_MS`   | 3000    | connecting, or waiting for a free pooled connection                |
 * | `GOV_DB_POOL_MAX`             | 10      | connections per gateway process                                    |
 * | `GOV_DB_APPLICATION_NAME`     | `gov`   | `application_name` of gov's connections (`pg_stat_activity`)        |
 * | `GOV_MEMORY_AUDIT_MAX`        | 20000   | audit records the `memory` store keeps; older ones are dropped     |
 */

/** Settings of {@link readStorageSettings}. */
export interface StorageSettings {
  statementTimeoutMs: number
  acquireTimeoutMs: number
  poolMax: number
  applicationName: string
  memoryAuditMax: number
}

export const DEFAULT_STORAGE_SETTINGS: Readonly<StorageSettings> = Object.freeze({
  statementTimeoutMs: 3000,
  acquireTimeoutMs: 3000,
  poolMax: 10,
  applicationName: 'gov',
  memoryAuditMax: 20_000,
})

/** Code of the error thrown for an unusable storage setting. */
export const STORAGE_SETTING_INVALID = 'GOV_ERR_CONFIG_INVALID'

/** A storage setting that cannot be used; the message names the variable. */
export class StorageSettingError extends Error {
  readonly code = STORAGE_SETTING_INVALID
}

/** Read the storage settings; throws {@link StorageSettingError} for unusable values. */
export function readStorageSettings(env: NodeJS.ProcessEnv): StorageSettings {
  const name = env.GOV_DB_APPLICATION_NAME
  if (name !== undefined && name !== '' && !/^[\x20-\x7e]{1,63}$/.test(name)) {
    throw new StorageSettingError('GOV_DB_APPLICATION_NAME must be 1–63 printable ASCII characters')
  }
  return {
    statementTimeoutMs: positive(
      env,
      'GOV_DB_STATEMENT_TIMEOUT_MS',
      DEFAULT_STORAGE_SETTINGS.statementTimeoutMs,
    ),
    acquireTimeoutMs: positive(env, 'GOV_DB_ACQUIRE_TIMEOUT_MS', DEFAULT_STORAGE_SETTINGS.acquireTimeoutMs),
    poolMax: positive(env, 'GOV_DB_POOL_MAX', DEFAULT_STORAGE_SETTINGS.poolMax),
    applicationName: name || DEFAULT_STORAGE_SETTINGS.applicationName,
    memoryAuditMax: positive(env, 'GOV_MEMORY_AUDIT_MAX', DEFAULT_STORAGE_SETTINGS.memoryAuditMax),
  }
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new StorageSettingError(`${name} must be an integer ≥ 1, got "${raw}"`)
  }
  return value
}
