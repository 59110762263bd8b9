import { randomBytes } from 'node:crypto'
import { type AuditSettings, readAuditSettings } from './audit/audit-settings.js'
import { DEFAULT_MAX_JSON_DEPTH } from './http/body.js'
import type { SecretSource } from './secrets/secret-source.js'
import { isSecretName } from './secrets/secret-source.js'
import { readTokenSettings, type TokenSettings } from './tokens/token-settings.js'
import { DEFAULT_MAX_ANSWER_BYTES } from './upstream/upstream-client.js'

/**
 * Everything the host reads at start. Plain settings come from the environment;
 * names that are secrets (`*_API_KEY`, `*_SECRET`, `*_PASSWORD`, `*_TOKEN`,
 * `DATABASE_URL`, `REDIS_URL`) come through the SecretSource.
 */
export interface GovConfig {
  port: number
  host: string
  env: string
  logLevel: string
  databaseUrl: string | undefined
  /** Embedded file database folder (PGlite); memory when unset. */
  dataDir: string | undefined
  redisUrl: string | undefined
  openaiBaseUrl: string
  anthropicBaseUrl: string
  openaiApiKey: string | undefined
  anthropicApiKey: string | undefined
  adminApiKey: string
  /** True when the admin key was generated at start (development only). */
  adminKeyGenerated: boolean
  licenseSeats: number | undefined
  /** Extra step plugin packages (names or paths), from `GOV_PLUGINS`. */
  plugins: string[]
  /** Preset used by agents with no assigned pipeline. */
  defaultPreset: string
  /** Total deadline of one upstream call, first byte sent to last byte read (`GOV_UPSTREAM_TIMEOUT_MS`). */
  upstreamTimeoutMs: number
  /** Largest upstream answer read; larger ones get 502 `upstream_answer_too_large` (`GOV_MAX_ANSWER_BYTES`). */
  maxAnswerBytes: number
  /** Keep-alive interval of a streamed answer gov holds back while it checks (`GOV_STREAM_KEEPALIVE_MS`); 0 = none. */
  streamKeepAliveMs: number
  maxBodyBytes: number
  /** Deepest nesting of arrays/objects in a JSON request body (`GOV_MAX_JSON_DEPTH`). */
  maxJsonDepth: number
  /** Capability tokens: lifetime, audience, issuer (`GOV_TOKEN_*`). */
  tokens: TokenSettings
  /** Signed checkpoints and SIEM sinks of the audit trail (`GOV_AUDIT_*`). */
  audit: AuditSettings
  /** Cedar policy file (`GOV_POLICY_FILE`); the shipped `policies/default.cedar` when unset. */
  policyFile: string | undefined
}

/** A configuration value that cannot be used; the message says what to change. */
export class ConfigError extends Error {
  readonly code = 'GOV_ERR_CONFIG_INVALID'
}

/** `env[name]` as an integer ≥ `min`, `fallback` when unset or empty; a {@link ConfigError} naming it otherwise. */
export function integerSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number | undefined,
  min = 0,
): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`)
  return value
}

function plain(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (isSecretName(name)) throw new Error(`${name} is a secret; read it through the secret source`)
  const value = env[name]
  return value === undefined || value === '' ? undefined : value
}

/** Read the configuration. Throws ConfigError for unusable values. */
export async function loadConfig(env: NodeJS.ProcessEnv, secrets: SecretSource): Promise<GovConfig> {
  const govEnv = plain(env, 'GOV_ENV') ?? 'development'
  let adminApiKey = await secrets.get('GOV_ADMIN_API_KEY')
  let adminKeyGenerated = false
  if (!adminApiKey) {
    if (govEnv === 'production')
      throw new ConfigError('GOV_ADMIN_API_KEY must be set when GOV_ENV=production')
    adminApiKey = `gov_admin_${randomBytes(24).toString('base64url')}`
    adminKeyGenerated = true
  }
  const openaiBaseUrl = (plain(env, 'OPENAI_BASE_URL') ?? 'https://api.openai.com/v1').replace(/\/+$/, '')
  const anthropicBaseUrl = (plain(env, 'ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com').replace(
    /\/+$/,
    '',
  )
  for (const [name, url] of [
    ['OPENAI_BASE_URL', openaiBaseUrl],
    ['ANTHROPIC_BASE_URL', anthropicBaseUrl],
  ]) {
    // undici reaches providers over http(s) only: "node:…", "file:…" parse but cannot be called.
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new ConfigError(`${name} must be an absolute http(s) URL, got "${url}"`)
  }
  return {
    port: integerSetting(env, 'GOV_PORT', 8080) as number,
    host: plain(env, 'GOV_HOST') ?? '127.0.0.1',
    env: govEnv,
    logLevel: plain(env, 'LOG_LEVEL') ?? 'info',
    databaseUrl: await secrets.get('DATABASE_URL'),
    dataDir: plain(env, 'GOV_DATA_DIR'),
    redisUrl: await secrets.get('REDIS_URL'),
    openaiBaseUrl,
    anthropicBaseUrl,
    openaiApiKey: await secrets.get('OPENAI_API_KEY'),
    anthropicApiKey: await secrets.get('ANTHROPIC_API_KEY'),
    adminApiKey,
    adminKeyGenerated,
    licenseSeats: integerSetting(env, 'GOV_LICENSE_SEATS', undefined, 1),
    plugins: (plain(env, 'GOV_PLUGINS') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    defaultPreset: plain(env, 'GOV_DEFAULT_PRESET') ?? 'standard',
    upstreamTimeoutMs: integerSetting(env, 'GOV_UPSTREAM_TIMEOUT_MS', 120_000, 1) as number,
    maxAnswerBytes: integerSetting(env, 'GOV_MAX_ANSWER_BYTES', DEFAULT_MAX_ANSWER_BYTES, 1024) as number,
    streamKeepAliveMs: integerSetting(env, 'GOV_STREAM_KEEPALIVE_MS', 10_000, 0) as number,
    maxBodyBytes: integerSetting(env, 'GOV_MAX_BODY_BYTES', 10 * 1024 * 1024, 1024) as number,
    maxJsonDepth: integerSetting(env, 'GOV_MAX_JSON_DEPTH', DEFAULT_MAX_JSON_DEPTH, 8) as number,
    tokens: readTokenSettings(env),
    audit: await readAuditSettings(env, secrets),
    policyFile: plain(env, 'GOV_POLICY_FILE'),
  }
}
