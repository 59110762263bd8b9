import { GovError } from '@gov/core'
import { envValue } from '../env-value.js'

/** Settings of the in-process health monitor (plain configuration). */
export interface MonitorSettings {
  /** `GOV_MONITOR_INTERVAL_MS` (default 300 000: the spec's 5 minutes); `0` turns the monitor off. */
  intervalMs: number
  /** `GOV_MONITOR_DISK_PATHS`: comma-separated paths whose file systems are watched (default `/`, plus `GOV_DATA_DIR`). */
  diskPaths: string[]
  /** Alert when a file system is fuller than this share (the spec's 90 %). */
  diskThreshold: number
  /** `GOV_INTERNAL_CA_FILE` (else `GOV_TLS_CLIENT_CA_FILE`, else `VAULT_CACERT`): the internal CA certificate whose expiry is watched. */
  caFile: string | undefined
  /** Alert when the CA expires within this many days (the spec's 30). */
  caMinDays: number
}

/** Read the monitor's settings; throws `GOV_ERR_CONFIG_INVALID` for an unusable interval. */
export function readMonitorSettings(env: NodeJS.ProcessEnv): MonitorSettings {
  const raw = envValue(env, 'GOV_MONITOR_INTERVAL_MS')
  const intervalMs = raw === undefined ? 300_000 : Number(raw)
  if (!Number.isInteger(intervalMs) || (intervalMs !== 0 && intervalMs < 1_000)) {
    throw new GovError(
      'GOV_ERR_CONFIG_INVALID',
      `GOV_MONITOR_INTERVAL_MS must be 0 (off) or an integer ≥ 1000, got "${raw}"`,
      500,
    )
  }
  const listed = (envValue(env, 'GOV_MONITOR_DISK_PATHS') ?? '/')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  const dataDir = envValue(env, 'GOV_DATA_DIR')
  const diskPaths = [...new Set(dataDir ? [...listed, dataDir] : listed)]
  return {
    intervalMs,
    diskPaths,
    diskThreshold: 0.9,
    caFile:
      envValue(env, 'GOV_INTERNAL_CA_FILE') ??
      envValue(env, 'GOV_TLS_CLIENT_CA_FILE') ??
      envValue(env, 'VAULT_CACERT'),
    caMinDays: 30,
  }
}
