import { errors } from 'jose'
import type { CapabilityClaims } from './capability-claims.js'

/** Why a token was refused. Stable codes: callers and tests match these, not the message. */
export type RefusalReason =
  | 'malformed'
  | 'bad_signature'
  | 'unknown_key'
  | 'wrong_audience'
  | 'wrong_issuer'
  | 'expired'

/** The answer of `POST /v1/tokens/verify`. */
export type VerifyResult =
  | { readonly valid: true; readonly claims: CapabilityClaims }
  | {
      readonly valid: false
      /** `expired` for a genuine token past its `exp`; `denied` for every other failure. */
      readonly result: 'denied' | 'expired'
      readonly reason: RefusalReason
      readonly message: string
    }

/** A refusal decided before or while looking up the key (unknown `kid`, algorithm not the key's). */
export class KeyLookupRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message)
  }
}

/** A denied result. */
export function denied(reason: Exclude<RefusalReason, 'expired'>, message: string): VerifyResult {
  return { valid: false, result: 'denied', reason, message }
}

/**
 * Map whatever verification threw to a refusal. Anything unexpected counts as
 * malformed: a token a caller made up must never turn into a server error.
 */
export function refusalOf(err: unknown): VerifyResult {
  if (err instanceof KeyLookupRefusal)
    return { valid: false, result: 'denied', reason: err.reason, message: err.message }
  // jose checks the signature before the claims, so only a genuine token can be "expired".
  if (err instanceof errors.JWTExpired)
    return { valid: false, result: 'expired', reason: 'expired', message: 'token has expired' }
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return denied('bad_signature', 'signature does not match the key named by kid')
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return denied('wrong_audience', 'token is not meant for this audience')
    if (err.claim === 'iss') return denied('wrong_issuer', 'token was not issued by this gateway')
    return denied('malformed', `token claim "${err.claim}" failed validation (${err.reason})`)
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return denied('malformed', 'token algorithm is not accepted')
  return denied('malformed', 'token is not a well-formed signed JWT')
}
