import { GovError } from '@gov/core'
import { LRUCache } from 'lru-cache'
import type { Logger } from '../logging.js'
import { CONFIG_NAME_PATTERN, isSecretName, type SecretProblem, type SecretSource } from './secret-source.js'
import type { VaultAuth } from './vault-auth.js'
import type { VaultClient } from './vault-client.js'
import { isOutage, VaultErrorCodes, VaultRequestError, vaultError } from './vault-errors.js'
import { kvDataPath, type VaultSettings } from './vault-settings.js'

/** The spec's cache limits: 500 entries (LRU), 5 minutes ± 10 % per entry. */
export const SECRET_CACHE_DEFAULTS = { max: 500, ttlMs: 300_000, jitter: 0.1, retryMs: 5_000 } as const

/** A cached read: `value` undefined means Vault has no entry for the name (cached like a value). */
interface Entry {
  value: string | undefined
}

interface Failure extends SecretProblem {
  error: GovError
}

export interface VaultSecretSourceOptions {
  client: VaultClient
  auth: VaultAuth
  settings: Pick<VaultSettings, 'kvMount' | 'secretPath'>
  /** Where non-secret names are read from. */
  env: NodeJS.ProcessEnv
  logger: Logger
  /** Clock in ms (tests inject one; it must not start at 0, which lru-cache reads as "no TTL"). */
  now?: () => number
  /** Source of the TTL jitter, in [0, 1). */
  random?: () => number
  /** Cache size (default 500). */
  max?: number
  /** Cache lifetime before jitter (default 5 minutes). */
  ttlMs?: number
  /** Jitter as a share of the lifetime (default 0.1: ±10 %), so replicas do not re-read in step. */
  jitter?: number
  /** After Vault fails, how long reads are answered from the cache without asking Vault again (default 5 s). */
  retryMs?: number
}

/**
 * Secrets from Vault KV v2, one entry per name at `<mount>/data/<path>/<NAME>`,
 * field `value`. Names that are not secrets come from the environment without
 * a Vault call. Reads go through an LRU cache (500 entries, 5 min ± jitter).
 * When Vault is unreachable or failing, the last cached value is served
 * (lru-cache's `allowStaleOnFetchRejection`), a warning is logged, and Vault is
 * left alone for `retryMs` so a dead Vault does not slow every call; with
 * nothing cached the read fails with a coded error.
 */
export class VaultSecretSource implements SecretSource {
  readonly kind = 'vault'
  readonly #cache: LRUCache<string, Entry>
  readonly #now: () => number
  readonly #random: () => number
  readonly #ttlMs: number
  readonly #jitter: number
  readonly #retryMs: number
  /** Invalidated names → generation, kept until a read after the invalidation succeeds. */
  readonly #refresh = new Map<string, number>()
  #generation = 0
  readonly #failures = new Map<string, Failure>()
  #retryAt = 0
  #outage: GovError | undefined

  constructor(private readonly options: VaultSecretSourceOptions) {
    this.#now = options.now ?? (() => performance.now())
    this.#random = options.random ?? Math.random
    this.#ttlMs = options.ttlMs ?? SECRET_CACHE_DEFAULTS.ttlMs
    this.#jitter = options.jitter ?? SECRET_CACHE_DEFAULTS.jitter
    this.#retryMs = options.retryMs ?? SECRET_CACHE_DEFAULTS.retryMs
    this.#cache = new LRUCache<string, Entry>({
      max: options.max ?? SECRET_CACHE_DEFAULTS.max,
      ttl: this.#ttlMs,
      // Read the clock on every check: the default 1 ms debounce would hide a test clock's jumps.
      ttlResolution: 0,
      perf: { now: this.#now },
      allowStaleOnFetchRejection: true,
      fetchMethod: (name, stale, { options: entryOptions }) => this.#load(name, stale, entryOptions),
    })
  }

  /** Entries held in the cache (at most `max`). */
  get cachedCount(): number {
    return this.#cache.size
  }

  async get(name: string): Promise<string | undefined> {
    if (!isSecretName(name)) {
      const value = this.options.env[name]
      return value === undefined || value === '' ? undefined : value
    }
    if (!CONFIG_NAME_PATTERN.test(name)) {
      throw new GovError(VaultErrorCodes.NAME_INVALID, `"${name}" is not a configuration name`, 400)
    }
    const entry = await this.#cache.fetch(name, { forceRefresh: this.#refresh.has(name) })
    if (entry) return entry.value
    // Every successful read caches an Entry, so nothing here means the read failed with nothing to fall back on.
    throw (
      this.#failures.get(name)?.error ??
      vaultError(VaultErrorCodes.UNAVAILABLE, `${name} could not be read from Vault`)
    )
  }

  /**
   * The value of a fresh cache entry (or of a non-secret name, from the
   * environment) without a promise; undefined when `get` would read Vault (no
   * entry, an expired one, an invalidated name) or the name is not set. A stale
   * entry stays in the cache as the fallback `get` may serve when Vault fails.
   */
  cached(name: string): string | undefined {
    if (!isSecretName(name)) {
      const value = this.options.env[name]
      return value === undefined || value === '' ? undefined : value
    }
    if (this.#refresh.has(name)) return undefined
    return this.#cache.get(name, { noDeleteOnStaleGet: true })?.value
  }

  /** The next `get(name)` reads Vault again; the cached value stays as the fallback until that read succeeds. */
  invalidate(name: string): void {
    if (!isSecretName(name)) return
    this.#refresh.set(name, ++this.#generation)
    // An operator invalidating expects the re-read now, not after the outage back-off.
    this.#retryAt = 0
  }

  problems(): readonly SecretProblem[] {
    return [...this.#failures.values()].map(({ name, code, stale }) => ({ name, code, stale }))
  }

  close(): void {
    this.options.auth.close()
  }

  async #load(
    name: string,
    stale: Entry | undefined,
    entryOptions: LRUCache.FetcherFetchOptions<string, Entry>,
  ): Promise<Entry> {
    const generation = this.#refresh.get(name)
    const backingOff = this.#outage !== undefined && this.#now() < this.#retryAt
    try {
      if (backingOff) throw this.#outage
      const entry = await this.#read(name)
      entryOptions.ttl = this.#entryTtl()
      this.#failures.delete(name)
      this.#outage = undefined
      if (this.#refresh.get(name) === generation) this.#refresh.delete(name)
      return entry
    } catch (err) {
      const error = vaultErrorOf(err)
      if (!backingOff && isOutage(error)) {
        this.#outage = error
        this.#retryAt = this.#now() + this.#retryMs
      }
      this.#failures.set(name, { name, code: error.code, stale: stale !== undefined, error })
      if (!backingOff) {
        this.options.logger.warn(
          { secret: name, code: error.code, err: error.message },
          stale
            ? 'vault unreachable or failing; serving the last cached value'
            : 'vault read failed and no cached value exists',
        )
      }
      throw error
    }
  }

  async #read(name: string): Promise<Entry> {
    const { client, auth, settings } = this.options
    const path = kvDataPath(settings, name)
    let token = await auth.token()
    let kv: Awaited<ReturnType<VaultClient['readKv']>>
    try {
      kv = await client.readKv(path, token)
    } catch (err) {
      if (!(err instanceof VaultRequestError) || err.kind !== 'denied') throw err
      // Revoked, or expired before its time: log in again once and retry.
      auth.forget(token)
      token = await auth.token()
      kv = await client.readKv(path, token)
    }
    if (!kv) return { value: undefined }
    const value = kv.data.value
    if (typeof value !== 'string') {
      throw vaultError(VaultErrorCodes.SECRET_MALFORMED, `${path} has no string field "value"`, { path })
    }
    return { value: value === '' ? undefined : value }
  }

  #entryTtl(): number {
    return Math.round(this.#ttlMs * (1 + this.#jitter * (2 * this.#random() - 1)))
  }
}

function vaultErrorOf(err: unknown): GovError {
  if (err instanceof GovError) return err
  if (err instanceof VaultRequestError) {
    if (err.outage) return vaultError(VaultErrorCodes.UNAVAILABLE, `Vault is unavailable: ${err.message}`)
    if (err.kind === 'malformed') return vaultError(VaultErrorCodes.SECRET_MALFORMED, err.message)
    return vaultError(VaultErrorCodes.DENIED, `Vault refused the read: ${err.message}`, {
      status: err.status,
    })
  }
  return vaultError(VaultErrorCodes.UNAVAILABLE, `Vault read failed: ${(err as Error).message}`)
}
