/**
 * TLS of the Redis connections (`rediss://`): a private CA to trust and a
 * client certificate to present, from files. The files are re-read when they
 * change, so every new connection (a reconnect after Redis restarts, the bus's
 * subscriber) uses the rotated certificate without a gov restart.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import type { ConnectionOptions } from 'node:tls'
import { GovError } from '@gov/core'
import { envValue } from '../env-value.js'
import { TlsErrorCodes } from '../tls/tls-settings.js'

/** The `GOV_REDIS_TLS_*` settings: paths, never the PEM itself. */
export interface RedisTlsSettings {
  /** `GOV_REDIS_TLS_CA_FILE`: PEM CA certificate(s) that signed Redis's certificate; the system CAs when unset. */
  caFile: string | undefined
  /** `GOV_REDIS_TLS_CERT_FILE`: PEM client certificate, for a Redis with `tls-auth-clients yes`. */
  certFile: string | undefined
  /** `GOV_REDIS_TLS_KEY_FILE`: PEM private key of the client certificate. */
  keyFile: string | undefined
}

/**
 * Read the `GOV_REDIS_TLS_*` settings; undefined when none is set. Throws
 * `GOV_ERR_TLS_CONFIG_INVALID` when only one of the client certificate and key is.
 */
export function readRedisTlsSettings(env: NodeJS.ProcessEnv): RedisTlsSettings | undefined {
  const caFile = envValue(env, 'GOV_REDIS_TLS_CA_FILE')
  const certFile = envValue(env, 'GOV_REDIS_TLS_CERT_FILE')
  const keyFile = envValue(env, 'GOV_REDIS_TLS_KEY_FILE')
  if (!caFile && !certFile && !keyFile) return undefined
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new GovError(
      TlsErrorCodes.CONFIG_INVALID,
      'GOV_REDIS_TLS_CERT_FILE and GOV_REDIS_TLS_KEY_FILE go together: set both to present a client certificate to Redis, or neither',
      500,
    )
  }
  return { caFile, certFile, keyFile }
}

/** Check that the settings fit the URL: TLS files without `rediss://` would be silently unused. */
export function checkRedisTlsUrl(redisUrl: string | undefined, settings: RedisTlsSettings | undefined): void {
  if (settings && redisUrl && !redisUrl.startsWith('rediss:')) {
    throw new GovError(
      TlsErrorCodes.CONFIG_INVALID,
      'GOV_REDIS_TLS_* is set but REDIS_URL is not rediss://: use rediss://… to connect to Redis over TLS, or unset the GOV_REDIS_TLS_* files',
      500,
    )
  }
}

function fileError(what: string, path: string, reason: string): GovError {
  return new GovError(TlsErrorCodes.FILE_INVALID, `${what} ${path}: ${reason}`, 500)
}

interface Material {
  ca: Buffer | undefined
  cert: Buffer | undefined
  key: Buffer | undefined
}

/** Read and check the files: PEM certificates, and a key that belongs to the client certificate. */
function load(settings: RedisTlsSettings): Material {
  const read = (what: string, path: string | undefined): Buffer | undefined => {
    if (!path) return undefined
    try {
      return readFileSync(path)
    } catch (err) {
      throw fileError(what, path, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
    }
  }
  const ca = read('GOV_REDIS_TLS_CA_FILE', settings.caFile)
  const cert = read('GOV_REDIS_TLS_CERT_FILE', settings.certFile)
  const key = read('GOV_REDIS_TLS_KEY_FILE', settings.keyFile)
  if (ca && settings.caFile) {
    try {
      new X509Certificate(ca)
    } catch {
      throw fileError('GOV_REDIS_TLS_CA_FILE', settings.caFile, 'holds no PEM certificate')
    }
  }
  if (cert && key && settings.certFile && settings.keyFile) {
    let leaf: X509Certificate
    try {
      leaf = new X509Certificate(cert)
    } catch {
      throw fileError('GOV_REDIS_TLS_CERT_FILE', settings.certFile, 'holds no PEM certificate')
    }
    let matches: boolean
    try {
      matches = leaf.checkPrivateKey(createPrivateKey(key))
    } catch {
      throw fileError('GOV_REDIS_TLS_KEY_FILE', settings.keyFile, 'holds no usable private key')
    }
    if (!matches) {
      throw fileError('GOV_REDIS_TLS_KEY_FILE', settings.keyFile, 'does not belong to the client certificate')
    }
  }
  return { ca, cert, key }
}

/** What identifies a file's version without reading it. */
function stamp(path: string | undefined): string {
  if (!path) return ''
  try {
    const s = statSync(path)
    return `${s.mtimeMs}:${s.size}:${s.ino}`
  } catch {
    return 'missing'
  }
}

/**
 * TLS options for ioredis that re-read the files when they change. ioredis
 * copies the options into `tls.connect()` at every connection, so the getters
 * run then: a new connection gets the current files. A rotation caught half
 * way (a certificate without its new key) keeps the last good set and reports
 * the problem to `onError`. Throws `GOV_ERR_TLS_FILE_INVALID` when the files are
 * unusable now, so a bad path stops start-up.
 */
export function redisTlsOptions(
  settings: RedisTlsSettings,
  onError: (error: Error) => void = () => {},
): ConnectionOptions {
  const paths = [settings.caFile, settings.certFile, settings.keyFile]
  let current = load(settings)
  let version = paths.map(stamp).join('|')
  const fresh = (): Material => {
    const now = paths.map(stamp).join('|')
    if (now !== version) {
      version = now
      try {
        current = load(settings)
      } catch (err) {
        onError(err as Error)
      }
    }
    return current
  }
  const options: ConnectionOptions = {}
  // Enumerable getters: Object.assign (ioredis) and tls.connect read them at each connection.
  if (settings.caFile) Object.defineProperty(options, 'ca', { enumerable: true, get: () => fresh().ca })
  if (settings.certFile) {
    Object.defineProperty(options, 'cert', { enumerable: true, get: () => fresh().cert })
    Object.defineProperty(options, 'key', { enumerable: true, get: () => fresh().key })
  }
  return options
}

/** One line for logs and `gov doctor`: which files the Redis TLS uses. */
export function describeRedisTls(settings: RedisTlsSettings | undefined): string {
  if (!settings) return 'the default CAs, no client certificate'
  const parts = [settings.caFile ? `CA ${settings.caFile}` : 'the default CAs']
  parts.push(settings.certFile ? `client certificate ${settings.certFile}` : 'no client certificate')
  return parts.join(', ')
}
