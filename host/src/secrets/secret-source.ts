/**
 * Where secrets come from. A name ending in `_API_KEY`, `_SECRET`, `_PASSWORD`
 * or `_TOKEN`, or a known secret name, is a secret and is read through a
 * SecretSource; every other name is plain configuration read from the process
 * environment. The environment source is for development; Vault
 * (`vault-secret-source.ts`) implements the same interface for production.
 */
export interface SecretSource {
  /** `env` or `vault`. */
  readonly kind: string
  /** The secret's value, or undefined when it is not set. Rejects with a coded GovError when it cannot be read. */
  get(name: string): Promise<string | undefined>
  /**
   * Optional fast path for hot lookups: the value `get(name)` would give right
   * now, when it is at hand without waiting (the environment, a fresh cache
   * entry); undefined when it is not, or when the secret is not set — then
   * ask `get`, which decides.
   */
  cached?(name: string): string | undefined
  /** Forget a cached value so the next `get` reads afresh. */
  invalidate(name: string): void
  /** Secrets whose last read failed (reported by `/health`). */
  problems?(): readonly SecretProblem[]
  /** Stop background work (token renewal). */
  close?(): Promise<void> | void
}

/** A secret whose last read failed: `stale` when its last good value is still served. */
export interface SecretProblem {
  readonly name: string
  readonly code: string
  readonly stale: boolean
}

/** Names that are secrets although their suffix does not say so. */
export const KNOWN_SECRET_NAMES: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'VAULT_TOKEN',
  'GOV_TOKEN_SIGNING_KEY',
])

const SECRET_SUFFIXES = ['_API_KEY', '_SECRET', '_PASSWORD', '_TOKEN']

/** What a configuration name may look like; anything else never becomes part of a Vault path. */
export const CONFIG_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

/** True when a configuration name must be read as a secret. */
export function isSecretName(name: string): boolean {
  return KNOWN_SECRET_NAMES.has(name) || SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix))
}

/** Reads secrets from the process environment. Development only: `/health` flags it in production. */
export class EnvSecretSource implements SecretSource {
  readonly kind = 'env'
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}
  async get(name: string): Promise<string | undefined> {
    return this.cached(name)
  }
  cached(name: string): string | undefined {
    const value = this.env[name]
    return value === undefined || value === '' ? undefined : value
  }
  invalidate(): void {}
}
