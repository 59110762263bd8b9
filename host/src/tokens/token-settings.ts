import { GovError } from '@gov/core'

/** The secret that holds the signing key: a private JWK (JSON) or a PKCS8 PEM, Ed25519 or P-256. */
export const SIGNING_KEY_SECRET = 'GOV_TOKEN_SIGNING_KEY'

/** How capability tokens are minted and checked. */
export interface TokenSettings {
  /** Lifetime of a token in seconds (`GOV_TOKEN_TTL_SECONDS`, default 300). */
  readonly ttlSeconds: number
  /** `aud` of minted tokens and the audience `/v1/tokens/verify` expects by default (`GOV_TOKEN_AUDIENCE`). */
  readonly audience: string
  /** `iss` of minted tokens (`GOV_TOKEN_ISSUER`). */
  readonly issuer: string
}

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = { ttlSeconds: 300, audience: 'gov-tools', issuer: 'gov' }

/** A capability is meant to be short-lived; a day is already generous for a tool call. */
const MAX_TTL_SECONDS = 86_400

function invalid(message: string): GovError {
  return new GovError('GOV_ERR_CONFIG_INVALID', message, 500)
}

function text(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw.trim() !== raw || raw.length > 256)
    throw invalid(`${name} must be 1–256 characters without surrounding spaces`)
  return raw
}

/** Read the token settings from the environment; throws `GOV_ERR_CONFIG_INVALID` for unusable values. */
export function readTokenSettings(env: NodeJS.ProcessEnv): TokenSettings {
  const rawTtl = env.GOV_TOKEN_TTL_SECONDS
  let ttlSeconds = DEFAULT_TOKEN_SETTINGS.ttlSeconds
  if (rawTtl !== undefined && rawTtl !== '') {
    ttlSeconds = Number(rawTtl)
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS)
      throw invalid(`GOV_TOKEN_TTL_SECONDS must be an integer from 1 to ${MAX_TTL_SECONDS}, got "${rawTtl}"`)
  }
  return {
    ttlSeconds,
    audience: text(env, 'GOV_TOKEN_AUDIENCE', DEFAULT_TOKEN_SETTINGS.audience),
    issuer: text(env, 'GOV_TOKEN_ISSUER', DEFAULT_TOKEN_SETTINGS.issuer),
  }
}
