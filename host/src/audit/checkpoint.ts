/**
 * Signed checkpoints of the audit chain. A checkpoint is a compact JWS, signed
 * with the capability token key (so the gateway's published JWKS verifies it),
 * over the chain's head:
 *
 *     header  { "alg": "EdDSA"|"ES256", "kid": "…", "typ": "gov-audit-checkpoint+jws" }
 *     payload { "iss", "seq", "count", "hash", "record_id", "record_time", "iat", "created_at" }
 *
 * `seq` and `hash` are the head record's; `count` is the number of records up
 * to it (the chain is gapless from 1, so it equals `seq`). Whoever can rewrite
 * the whole audit table can rebuild a valid hash chain, but not a signature:
 * a rebuilt chain no longer hashes to a checkpoint signed before.
 */
import {
  compactVerify,
  createLocalJWKSet,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  errors as joseErrors,
} from 'jose'
import type { AuditCheckpoint, AuditRecord } from '../storage/store.js'

/** `typ` of a checkpoint JWS: never a capability token's (`gov-capability+jwt`). */
export const CHECKPOINT_TYPE = 'gov-audit-checkpoint+jws'

const ALGORITHMS = ['EdDSA', 'ES256']
const HEX64 = /^[0-9a-f]{64}$/

/** The signed facts of a checkpoint. */
export interface CheckpointPayload {
  readonly iss: string
  readonly seq: number
  readonly count: number
  readonly hash: string
  readonly record_id: string
  readonly record_time: string
  /** Epoch seconds of signing. */
  readonly iat: number
  readonly created_at: string
}

/** What signs checkpoints: the token service (`TokenService.signDocument`). */
export interface CheckpointSigner {
  signDocument(typ: string, payload: object): Promise<{ jws: string; kid: string }>
}

/** Sign a checkpoint of `head` (the last record of the chain) at `now`. */
export async function signCheckpoint(
  signer: CheckpointSigner,
  issuer: string,
  head: AuditRecord,
  now: Date,
): Promise<AuditCheckpoint> {
  const payload: CheckpointPayload = {
    iss: issuer,
    seq: head.seq,
    count: head.seq,
    hash: head.hash,
    record_id: head.id,
    record_time: head.time,
    iat: Math.floor(now.getTime() / 1000),
    created_at: now.toISOString(),
  }
  const { jws, kid } = await signer.signDocument(CHECKPOINT_TYPE, payload)
  return {
    seq: head.seq,
    hash: head.hash,
    record_id: head.id,
    record_time: head.time,
    created_at: payload.created_at,
    kid,
    jws,
  }
}

/** Why a checkpoint's signature was refused. */
export type SignatureRefusal = 'malformed' | 'unknown_key' | 'bad_signature'

/** The outcome of checking one checkpoint's JWS. */
export type SignatureCheck =
  | { readonly valid: true; readonly kid: string; readonly payload: CheckpointPayload }
  | { readonly valid: false; readonly reason: SignatureRefusal; readonly message: string }

/** A key set to check checkpoints with, built once from a JWKS document. */
export function checkpointKeys(jwks: JSONWebKeySet): ReturnType<typeof createLocalJWKSet> {
  if (!jwks || !Array.isArray(jwks.keys)) throw new TypeError('a JWKS is an object with a "keys" array')
  return createLocalJWKSet(jwks)
}

/**
 * Check a checkpoint JWS against a key set: an allowed algorithm, the
 * checkpoint `typ`, a key of the set, a valid signature and a payload of the
 * right shape. Never throws.
 */
export async function verifyCheckpointSignature(
  jws: unknown,
  keys: ReturnType<typeof createLocalJWKSet>,
): Promise<SignatureCheck> {
  if (typeof jws !== 'string' || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(jws)) {
    return { valid: false, reason: 'malformed', message: 'not a compact JWS' }
  }
  let header: JWSHeaderParameters
  let bytes: Uint8Array
  try {
    const result = await compactVerify(jws, keys, { algorithms: ALGORITHMS })
    header = result.protectedHeader
    bytes = result.payload
  } catch (err) {
    if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys) {
      return { valid: false, reason: 'unknown_key', message: 'no key of the JWKS has the checkpoint kid' }
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
      return { valid: false, reason: 'bad_signature', message: 'the signature does not verify' }
    }
    return { valid: false, reason: 'malformed', message: (err as Error).message }
  }
  if (header.typ !== CHECKPOINT_TYPE) {
    return { valid: false, reason: 'malformed', message: `typ is not ${CHECKPOINT_TYPE}` }
  }
  let payload: unknown
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    return { valid: false, reason: 'malformed', message: 'payload is not JSON' }
  }
  if (!isPayload(payload)) {
    return { valid: false, reason: 'malformed', message: 'payload lacks the checkpoint fields' }
  }
  return { valid: true, kid: header.kid ?? '', payload }
}

function isPayload(value: unknown): value is CheckpointPayload {
  const p = value as Partial<CheckpointPayload> | null
  return (
    typeof p === 'object' &&
    p !== null &&
    Number.isSafeInteger(p.seq) &&
    (p.seq as number) >= 1 &&
    p.count === p.seq &&
    typeof p.hash === 'string' &&
    HEX64.test(p.hash) &&
    typeof p.record_id === 'string' &&
    typeof p.record_time === 'string' &&
    typeof p.iss === 'string' &&
    Number.isSafeInteger(p.iat) &&
    typeof p.created_at === 'string'
  )
}
