import { readFile } from 'node:fs/promises'
import type { Logger } from '../logging.js'
import type { TokenLease, VaultClient } from './vault-client.js'
import { VaultErrorCodes, VaultRequestError, vaultError } from './vault-errors.js'
import type { VaultSettings } from './vault-settings.js'

/** A token refreshes (renew-self or a new login) once this share of its lifetime has passed. */
const REFRESH_AT = 2 / 3
/** Pause between background refresh attempts while Vault does not answer. */
const BACKGROUND_RETRY_MS = 5_000

interface HeldToken {
  value: string
  method: 'jwt' | 'token'
  obtainedAt: number
  /** Lifetime in ms at the last login or renewal; 0 = never expires. */
  ttlMs: number
  /** Lifetime in ms at login, to tell a renewal that hit the role's max TTL. */
  loginTtlMs: number
  renewable: boolean
}

/** One failed login attempt, as reported in `GOV_ERR_VAULT_AUTH_FAILED`'s details. */
interface Attempt {
  method: 'jwt' | 'token'
  kind: string
  status?: number
  message: string
}

export interface VaultAuthOptions {
  client: VaultClient
  settings: Pick<VaultSettings, 'role' | 'jwtPath' | 'authPath' | 'token'>
  logger: Logger
  /** Clock in ms (tests inject one); default `performance.now`. */
  now?: () => number
  /** Renew in the background before the token expires even when no secret is read (default true). */
  renewInBackground?: boolean
}

/**
 * Holds gov's Vault token. Login order: the workload JWT (read from disk at
 * each login, as it lives minutes) through Vault's JWT auth method, then the
 * static `VAULT_TOKEN`, checked with lookup-self; when both fail the caller
 * gets `GOV_ERR_VAULT_AUTH_FAILED` (or `GOV_ERR_VAULT_UNAVAILABLE` when Vault
 * could not be reached at all). Before a token expires it is renewed
 * (renew-self) or replaced by a fresh login; a token Vault refuses (revoked)
 * is dropped with `forget` and the next `token()` logs in again.
 */
export class VaultAuth {
  #held: HeldToken | undefined
  #pending: Promise<string> | undefined
  #timer: NodeJS.Timeout | undefined
  #closed = false
  readonly #now: () => number

  constructor(private readonly options: VaultAuthOptions) {
    this.#now = options.now ?? (() => performance.now())
  }

  /** How the current token was obtained (`jwt` or `token`), if one is held. */
  get method(): 'jwt' | 'token' | undefined {
    return this.#held?.method
  }

  /** A usable token: the held one, or a renewed or fresh one when it is due. */
  async token(): Promise<string> {
    const held = this.#held
    if (held && !this.#due(held)) return held.value
    this.#pending ??= this.#refresh().finally(() => {
      this.#pending = undefined
    })
    return this.#pending
  }

  /** Drop `token` (Vault refused it: revoked or expired early); the next `token()` logs in again. */
  forget(token: string): void {
    if (this.#held?.value === token) this.#held = undefined
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
  }

  #due(held: HeldToken): boolean {
    return held.ttlMs > 0 && this.#now() - held.obtainedAt >= held.ttlMs * REFRESH_AT
  }

  #expired(held: HeldToken): boolean {
    return held.ttlMs > 0 && this.#now() - held.obtainedAt >= held.ttlMs
  }

  async #refresh(): Promise<string> {
    const held = this.#held
    if (held?.renewable && !this.#expired(held)) {
      try {
        const renewed = await this.options.client.renewSelf(held.value)
        // A JWT login's token stops growing at the role's max TTL: then a fresh login is worth more.
        if (held.method === 'token' || renewed.ttlSeconds * 1000 >= held.loginTtlMs / 3) {
          return this.#hold({ ...renewed, token: held.value }, held.method, held.loginTtlMs)
        }
      } catch (err) {
        this.options.logger.debug(
          { err: (err as Error).message },
          'vault token renewal failed; logging in again',
        )
      }
    }
    try {
      return await this.#login()
    } catch (err) {
      // Vault is down but the token has not expired yet: keep using it and retry later.
      if (
        held &&
        this.#held === held &&
        !this.#expired(held) &&
        (err as { code?: string }).code === VaultErrorCodes.UNAVAILABLE
      ) {
        this.options.logger.warn(
          { code: VaultErrorCodes.UNAVAILABLE },
          'vault token refresh failed; using the current token until it expires',
        )
        return held.value
      }
      if (this.#held === held) this.#held = undefined
      throw err
    }
  }

  async #login(): Promise<string> {
    const { client, settings, logger } = this.options
    const attempts: Attempt[] = []
    if (settings.role && settings.jwtPath) {
      try {
        const jwt = await this.#readJwt(settings.jwtPath)
        const lease = await client.jwtLogin(settings.authPath, settings.role, jwt)
        return this.#hold(lease, 'jwt')
      } catch (err) {
        attempts.push(describe('jwt', err))
        if (settings.token) {
          logger.warn({ err: (err as Error).message }, 'vault jwt login failed; falling back to VAULT_TOKEN')
        }
      }
    }
    if (settings.token) {
      try {
        return this.#hold(await client.lookupSelf(settings.token), 'token')
      } catch (err) {
        attempts.push(describe('token', err))
      }
    }
    const outage = attempts.every(
      (a) => a.kind === 'unreachable' || a.kind === 'timeout' || a.kind === 'server',
    )
    const summary = attempts.map((a) => `${a.method}: ${a.message}`).join('; ')
    throw outage
      ? vaultError(VaultErrorCodes.UNAVAILABLE, `Vault cannot be reached to log in (${summary})`, {
          attempts,
        })
      : vaultError(VaultErrorCodes.AUTH_FAILED, `Vault login failed (${summary})`, { attempts })
  }

  async #readJwt(path: string): Promise<string> {
    let jwt: string
    try {
      jwt = (await readFile(path, 'utf8')).trim()
    } catch (err) {
      throw new VaultRequestError('jwt_unreadable', `${path}: ${(err as NodeJS.ErrnoException).code}`)
    }
    if (!jwt) throw new VaultRequestError('jwt_unreadable', `${path} is empty`)
    return jwt
  }

  #hold(lease: TokenLease, method: 'jwt' | 'token', loginTtlMs?: number): string {
    const ttlMs = lease.ttlSeconds * 1000
    this.#held = {
      value: lease.token,
      method,
      obtainedAt: this.#now(),
      ttlMs,
      loginTtlMs: loginTtlMs ?? ttlMs,
      renewable: lease.renewable,
    }
    this.#schedule(ttlMs)
    return lease.token
  }

  /** Refresh in the background too, so an idle gateway's token does not lapse between reads. */
  #schedule(ttlMs: number): void {
    clearTimeout(this.#timer)
    if (this.#closed || ttlMs <= 0 || this.options.renewInBackground === false) return
    this.#wakeIn(ttlMs * REFRESH_AT)
  }

  #wakeIn(delayMs: number): void {
    this.#timer = setTimeout(() => this.#backgroundRefresh(), Math.max(delayMs, 250))
    this.#timer.unref()
  }

  #backgroundRefresh(): void {
    const held = this.#held
    if (!held || this.#closed) return
    if (!this.#due(held)) {
      // Woke up early (or the clock is a test's): wait for the rest.
      this.#wakeIn(held.obtainedAt + held.ttlMs * REFRESH_AT - this.#now())
      return
    }
    this.token()
      .catch((err: Error) =>
        this.options.logger.warn({ err: err.message }, 'vault background token refresh failed'),
      )
      .finally(() => {
        // Still due (Vault was down and the old token kept): try again shortly.
        const now = this.#held
        if (now && !this.#closed && this.#due(now)) this.#wakeIn(BACKGROUND_RETRY_MS)
      })
  }
}

function describe(method: 'jwt' | 'token', err: unknown): Attempt {
  if (err instanceof VaultRequestError) {
    return { method, kind: err.kind, ...(err.status ? { status: err.status } : {}), message: err.message }
  }
  return { method, kind: 'unexpected', message: (err as Error).message }
}
