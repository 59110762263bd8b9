import { GovError } from '@gov/core'
import { envValue } from '../env-value.js'

/** Error codes of the TLS settings and certificate loading. */
export const TlsErrorCodes = {
  /** `GOV_TLS_*` settings that cannot work together (only a certificate, a bad interval…). */
  CONFIG_INVALID: 'GOV_ERR_TLS_CONFIG_INVALID',
  /** A certificate, key or CA file cannot be read or does not hold what it should. */
  FILE_INVALID: 'GOV_ERR_TLS_FILE_INVALID',
} as const

/** Where gov's HTTPS certificate comes from. Plain configuration: paths, never the PEM itself. */
export interface TlsSettings {
  /** `GOV_TLS_CERT_FILE`: PEM certificate chain, leaf first. */
  certFile: string
  /** `GOV_TLS_KEY_FILE`: PEM private key of the leaf. */
  keyFile: string
  /** `GOV_TLS_CLIENT_CA_FILE`: when set, clients must present a certificate signed by this CA (mutual TLS). */
  clientCaFile: string | undefined
  /** `GOV_TLS_RELOAD_MS`: how often the files are checked for a new certificate (default 60 000). */
  reloadMs: number
}

/**
 * Read the `GOV_TLS_*` settings; undefined when gov should serve plain HTTP
 * (neither file set). Throws `GOV_ERR_TLS_CONFIG_INVALID` naming what to change.
 */
export function readTlsSettings(env: NodeJS.ProcessEnv): TlsSettings | undefined {
  const certFile = envValue(env, 'GOV_TLS_CERT_FILE')
  const keyFile = envValue(env, 'GOV_TLS_KEY_FILE')
  const clientCaFile = envValue(env, 'GOV_TLS_CLIENT_CA_FILE')
  if (!certFile && !keyFile) {
    if (clientCaFile) {
      throw new GovError(
        TlsErrorCodes.CONFIG_INVALID,
        'GOV_TLS_CLIENT_CA_FILE needs GOV_TLS_CERT_FILE and GOV_TLS_KEY_FILE: client certificates only exist over HTTPS',
        500,
      )
    }
    return undefined
  }
  if (!certFile || !keyFile) {
    throw new GovError(
      TlsErrorCodes.CONFIG_INVALID,
      'GOV_TLS_CERT_FILE and GOV_TLS_KEY_FILE go together: set both to serve HTTPS, or neither',
      500,
    )
  }
  const raw = envValue(env, 'GOV_TLS_RELOAD_MS')
  const reloadMs = raw === undefined ? 60_000 : Number(raw)
  if (!Number.isInteger(reloadMs) || reloadMs < 100) {
    throw new GovError(
      TlsErrorCodes.CONFIG_INVALID,
      `GOV_TLS_RELOAD_MS must be an integer ≥ 100, got "${raw}"`,
      500,
    )
  }
  return { certFile, keyFile, clientCaFile, reloadMs }
}
