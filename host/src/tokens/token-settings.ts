import { GovError } from '@gov/core'

/** The secret that holds the signing key: a private JWK (JSON) or a PKCS8 PEM, Ed25519 or P-256. */
export const SIGNING_KEY_SECRET = 'GOV_TOKEN_SIGNING_KEY'

/**
 * Whether a call may get the token an identical grant already got in the same
 * second (`same-second`), or always a freshly signed one (`off`).
 */
export type TokenReuse = 'same-second' | 'off'

const TOKEN_REUSE_VALUES: readonly TokenReuse[] = ['same-second', 'off']

/** How capability tokens are minted and checked. */
export interface TokenSettings {
  /** Lifetime of a token in seconds (`GOV_TOKEN_TTL_SECONDS`, default 300). */
  readonly ttlSeconds: number
  /** `aud` of minted tokens and the audience `/v1/tokens/verify` expects by default (`GOV_TOKEN_AUDIENCE`). */
  readonly audience: string
  /** `iss` of minted tokens (`GOV_TOKEN_ISSUER`). */
  readonly issuer: string
  /**
   * `GOV_TOKEN_REUSE`, default `same-second`: calls whose claims other than
   * `jti` are all equal (same agent, session, pipeline and version,
   * classification, tools, labels, issue second, key) share one token and its
   * `jti` instead of each paying for a signature. `off` signs every token.
   */
  readonly reuse: TokenReuse
}

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = {
  ttlSeconds: 300,
  audience: 'gov-tools',
  issuer: 'gov',
  reuse: 'same-second',
}

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
  const rawReuse = env.GOV_TOKEN_REUSE
  let reuse = DEFAULT_TOKEN_SETTINGS.reuse
  if (rawReuse !== undefined && rawReuse !== '') {
    if (!(TOKEN_REUSE_VALUES as readonly string[]).includes(rawReuse))
      throw invalid(
        `GOV_TOKEN_REUSE must be one of ${TOKEN_REUSE_VALUES.join(', ')}, got "${rawReuse.slice(0, 64)}"`,
      )
    reuse = rawReuse as TokenReuse
  }
  return {
    ttlSeconds,
    audience: text(env, 'GOV_TOKEN_AUDIENCE', DEFAULT_TOKEN_SETTINGS.audience),
    issuer: text(env, 'GOV_TOKEN_ISSUER', DEFAULT_TOKEN_SETTINGS.issuer),
    reuse,
  }
}
