import { readFileSync } from 'node:fs'
import { GovError } from '@gov/core'
import { envValue } from '../env-value.js'
import { VaultErrorCodes } from './vault-errors.js'

/**
 * Vault's own bootstrap settings. They come from the environment (and the
 * JWT and CA files from disk), never from Vault itself.
 */
export interface VaultSettings {
  /** `VAULT_ADDR`, without a trailing slash. */
  addr: string
  /** `VAULT_ROLE`: the JWT auth role; with `jwtPath` it enables workload-JWT login. */
  role: string | undefined
  /** `VAULT_JWT_PATH`: file holding the workload JWT, read afresh at each login. */
  jwtPath: string | undefined
  /** `VAULT_AUTH_PATH`: mount of the JWT auth method (default `jwt`). */
  authPath: string
  /** `VAULT_TOKEN`: the static fallback token. */
  token: string | undefined
  /** `VAULT_KV_MOUNT`: KV v2 mount (default `secret`). */
  kvMount: string
  /** `VAULT_SECRET_PATH`: folder under the mount holding one entry per secret (default `gov`). */
  secretPath: string
  /** `VAULT_NAMESPACE` (Vault Enterprise). */
  namespace: string | undefined
  /** PEM of `VAULT_CACERT` (internal CA), when set. */
  caCert: string | undefined
  /** `VAULT_TIMEOUT_MS`: per-request timeout (default 5000). */
  timeoutMs: number
}

const PATH = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/

function configError(message: string): GovError {
  return new GovError(VaultErrorCodes.CONFIG_INVALID, message, 500)
}

function path(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const v = (envValue(env, name) ?? fallback).replace(/^\/+|\/+$/g, '')
  if (!PATH.test(v) || v.split('/').some((segment) => segment === '.' || segment === '..'))
    throw configError(`${name} must be a Vault path like "secret" or "team/gov", got "${v}"`)
  return v
}

/** Read and check the `VAULT_*` settings. Throws `GOV_ERR_VAULT_CONFIG_INVALID` naming what to change. */
export function readVaultSettings(env: NodeJS.ProcessEnv): VaultSettings {
  const addr = envValue(env, 'VAULT_ADDR')?.replace(/\/+$/, '')
  if (!addr || !URL.canParse(addr) || !/^https?:$/.test(new URL(addr).protocol)) {
    throw configError(`VAULT_ADDR must be an http(s) URL, got "${addr ?? ''}"`)
  }
  const role = envValue(env, 'VAULT_ROLE')
  const jwtPath = envValue(env, 'VAULT_JWT_PATH')
  if (Boolean(role) !== Boolean(jwtPath)) {
    throw configError(
      'VAULT_ROLE and VAULT_JWT_PATH go together: set both for workload-JWT login, or neither',
    )
  }
  const token = envValue(env, 'VAULT_TOKEN')
  if (!jwtPath && !token) {
    throw configError('Vault needs a way to log in: set VAULT_ROLE and VAULT_JWT_PATH, or VAULT_TOKEN')
  }
  const timeoutRaw = envValue(env, 'VAULT_TIMEOUT_MS')
  const timeoutMs = timeoutRaw === undefined ? 5_000 : Number(timeoutRaw)
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw configError(`VAULT_TIMEOUT_MS must be a positive integer, got "${timeoutRaw}"`)
  }
  const caPath = envValue(env, 'VAULT_CACERT')
  let caCert: string | undefined
  if (caPath) {
    try {
      caCert = readFileSync(caPath, 'utf8')
    } catch (err) {
      throw configError(`VAULT_CACERT ${caPath} cannot be read: ${(err as NodeJS.ErrnoException).code}`)
    }
  }
  return {
    addr,
    role,
    jwtPath,
    authPath: path(env, 'VAULT_AUTH_PATH', 'jwt'),
    token,
    kvMount: path(env, 'VAULT_KV_MOUNT', 'secret'),
    secretPath: path(env, 'VAULT_SECRET_PATH', 'gov'),
    namespace: envValue(env, 'VAULT_NAMESPACE'),
    caCert,
    timeoutMs,
  }
}

/** The KV v2 API path of a secret: `<mount>/data/<secretPath>/<NAME>`; its value is the field `value`. */
export function kvDataPath(settings: Pick<VaultSettings, 'kvMount' | 'secretPath'>, name: string): string {
  return `${settings.kvMount}/data/${settings.secretPath}/${name}`
}
