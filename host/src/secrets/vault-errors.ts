import { GovError } from '@gov/core'

/** Stable codes of the Vault secret source; tests and operators match these, never the text. */
export const VaultErrorCodes = {
  /** Vault cannot be reached, timed out or answered 5xx, and no cached value exists. */
  UNAVAILABLE: 'GOV_ERR_VAULT_UNAVAILABLE',
  /** Neither the workload JWT nor `VAULT_TOKEN` gave a usable Vault token. */
  AUTH_FAILED: 'GOV_ERR_VAULT_AUTH_FAILED',
  /** Vault refuses the secret's path even with a fresh token (policy, or not a KV v2 mount). */
  DENIED: 'GOV_ERR_VAULT_DENIED',
  /** The KV entry exists but has no string field `value`. */
  SECRET_MALFORMED: 'GOV_ERR_VAULT_SECRET_MALFORMED',
  /** A `VAULT_*` setting cannot be used; the message says what to change. */
  CONFIG_INVALID: 'GOV_ERR_VAULT_CONFIG_INVALID',
  /** A name that cannot be a configuration name (it would become part of a Vault path). */
  NAME_INVALID: 'GOV_ERR_SECRET_NAME_INVALID',
} as const

/** How a single Vault request failed. */
export type VaultFailureKind =
  | 'unreachable'
  | 'timeout'
  | 'server'
  | 'denied'
  | 'rejected'
  | 'jwt_unreadable'
  | 'malformed'

/** One failed Vault request, classified. The message comes from Vault's `errors` list or the transport. */
export class VaultRequestError extends Error {
  constructor(
    readonly kind: VaultFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message)
    this.name = 'VaultRequestError'
  }

  /** True when Vault itself is out of reach or failing, as opposed to refusing this request. */
  get outage(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || this.kind === 'server'
  }
}

/** A coded Vault error (503: gov cannot serve the call until Vault answers). */
export function vaultError(code: string, message: string, details?: Record<string, unknown>): GovError {
  return new GovError(code, message, 503, details)
}

/** True for errors that mean "Vault is out of reach", which open the retry back-off. */
export function isOutage(err: unknown): boolean {
  if (err instanceof VaultRequestError) return err.outage
  if (err instanceof GovError)
    return err.code === VaultErrorCodes.UNAVAILABLE || err.code === VaultErrorCodes.AUTH_FAILED
  return false
}
