/**
 * Verifying audit evidence: the hash chain and its signed checkpoints together.
 * Used online (`GET /audit/verify`) and offline (`gov audit verify --offline`
 * on an export, with a JWKS file and no database).
 *
 * Records are fed in `seq` order and re-hashed (see `verify-chain.ts`). Each
 * checkpoint's signature is checked against the JWKS, and the head it signed
 * must be a record of the recomputed chain: same `seq`, same `hash`, same `id`.
 * A chain rebuilt after an edit still links, but no longer hashes to a
 * checkpoint signed before the edit; a chain cut short ends before a signed head.
 *
 * | checkpoint reason   | meaning                                                                    |
 * |---------------------|----------------------------------------------------------------------------|
 * | `malformed`         | not a checkpoint JWS, or its stored columns disagree with its payload     |
 * | `unknown_key`       | no key of the JWKS has its `kid` (pass the JWKS published when it was signed) |
 * | `bad_signature`     | the signature does not verify: the checkpoint was edited or forged        |
 * | `hash_mismatch`     | the record at its `seq` differs from the one signed: the chain was rebuilt |
 * | `chain_broken`      | the chain breaks before its `seq`, so the head cannot be confirmed        |
 * | `record_missing`    | its `seq` is past the last record: records were cut off the end           |
 */
import type { AuditCheckpoint, AuditRecord } from '../storage/store.js'
import {
  type CheckpointPayload,
  type checkpointKeys,
  type SignatureRefusal,
  verifyCheckpointSignature,
} from './checkpoint.js'
import { ChainVerifier, type VerifyResult } from './verify-chain.js'

export type CheckpointReason = SignatureRefusal | 'hash_mismatch' | 'chain_broken' | 'record_missing'

/** The first checkpoint that failed, with the range of records it implicates. */
export interface CheckpointFailure {
  readonly seq: number
  readonly reason: CheckpointReason
  readonly message: string
  /** For `hash_mismatch`: a record in this `seq` range (inclusive) was changed. */
  readonly changed_between?: readonly [number, number]
}

/** The checkpoint part of a verification. */
export interface CheckpointSummary {
  /** Checkpoints looked at (those within the records checked). */
  readonly checked: number
  /** Checkpoints whose signature verified and whose head is a record of the recomputed chain. */
  readonly verified: number
  /** Online only: checkpoints whose key left the JWKS (rotated long ago); their head was still compared. */
  readonly key_retired: number
  readonly first_failed?: CheckpointFailure
  /** `seq` of the newest verified checkpoint; records after it are not yet covered by a signature. */
  readonly last_verified_seq: number | null
}

/** Chain and checkpoints. */
export interface EvidenceResult extends VerifyResult {
  readonly checkpoints: CheckpointSummary
  /** Records after the newest verified checkpoint (covered by the hash chain only). */
  readonly unsigned_records: number
  /** The records checked start after `seq` 1 (a partial export): the first one's `prev_hash` was taken as given. */
  readonly starts_after?: number
}

export interface EvidenceVerifierOptions {
  /** The keys that signed the checkpoints. */
  readonly keys: ReturnType<typeof checkpointKeys>
  /**
   * Online the JWKS holds only keys still in use, so a checkpoint whose key
   * was retired counts as `key_retired` (its head is still compared) instead
   * of failing. Offline every key must be given: default strict.
   */
  readonly allowRetiredKeys?: boolean
  /** The store dropped records up to this one (memory store cap). */
  readonly anchor?: { seq: number; hash: string }
}

interface Pending {
  readonly checkpoint: AuditCheckpoint
  readonly payload: CheckpointPayload | undefined
  readonly refusal: { reason: SignatureRefusal; message: string } | undefined
}

/**
 * Add every checkpoint first ({@link addCheckpoint}), then the records in
 * `seq` order ({@link add}); read {@link result}.
 */
export class EvidenceVerifier {
  readonly #o: EvidenceVerifierOptions
  #chain: ChainVerifier | undefined
  #startsAfter: number | undefined
  readonly #pending = new Map<number, Pending>()
  #checked = 0
  #verified = 0
  #retired = 0
  #lastVerified: number | null = null
  #failed: CheckpointFailure | undefined
  #lastSeq = 0

  constructor(options: EvidenceVerifierOptions) {
    this.#o = options
    if (options.anchor) this.#chain = new ChainVerifier(options.anchor)
  }

  /** Check a checkpoint's signature now; its head is compared when its record arrives. */
  async addCheckpoint(checkpoint: AuditCheckpoint): Promise<void> {
    const check = await verifyCheckpointSignature(checkpoint.jws, this.#o.keys)
    let pending: Pending
    if (check.valid) {
      const p = check.payload
      const agrees =
        p.seq === checkpoint.seq && p.hash === checkpoint.hash && p.record_id === checkpoint.record_id
      pending = agrees
        ? { checkpoint, payload: p, refusal: undefined }
        : {
            checkpoint,
            payload: p,
            refusal: { reason: 'malformed', message: 'its fields differ from what its signature covers' },
          }
    } else {
      pending = { checkpoint, payload: undefined, refusal: check }
    }
    const seq = pending.payload?.seq ?? checkpoint.seq
    if (!this.#pending.has(seq) || pending.refusal === undefined) this.#pending.set(seq, pending)
  }

  add(record: AuditRecord): void {
    if (!this.#chain) {
      // A partial export: trust where it starts, check everything after.
      if (record.seq > 1) this.#startsAfter = record.seq - 1
      this.#chain = new ChainVerifier(
        record.seq > 1 ? { seq: record.seq - 1, hash: record.prev_hash } : undefined,
      )
    }
    this.#chain.add(record)
    this.#lastSeq = record.seq
    const pending = this.#pending.get(record.seq)
    if (!pending) return
    this.#pending.delete(record.seq)
    this.#judge(pending, record)
  }

  result(): EvidenceResult {
    const chain = (this.#chain ?? new ChainVerifier()).result()
    // Checkpoints past the last record: the end of the chain was cut off (or the export stops early).
    for (const [seq, pending] of [...this.#pending].sort((a, b) => a[0] - b[0])) {
      if (seq > this.#lastSeq) {
        this.#judge(pending, undefined)
        this.#pending.delete(seq)
      }
    }
    const unsigned = chain.head ? chain.head.seq - (this.#lastVerified ?? this.#startsAfter ?? 0) : 0
    return {
      ...chain,
      valid: chain.valid && this.#failed === undefined,
      checkpoints: {
        checked: this.#checked,
        verified: this.#verified,
        key_retired: this.#retired,
        ...(this.#failed ? { first_failed: this.#failed } : {}),
        last_verified_seq: this.#lastVerified,
      },
      unsigned_records: Math.max(0, unsigned),
      ...(this.#startsAfter === undefined ? {} : { starts_after: this.#startsAfter }),
    }
  }

  #judge(pending: Pending, record: AuditRecord | undefined): void {
    this.#checked += 1
    const seq = pending.payload?.seq ?? pending.checkpoint.seq
    const verdict = this.#verdict(pending, record, seq)
    if (verdict === 'verified') {
      this.#verified += 1
      this.#lastVerified = seq
    } else if (verdict === 'key_retired') this.#retired += 1
    else this.#failed ??= verdict
  }

  #verdict(
    pending: Pending,
    record: AuditRecord | undefined,
    seq: number,
  ): 'verified' | 'key_retired' | CheckpointFailure {
    const retired = pending.refusal?.reason === 'unknown_key' && this.#o.allowRetiredKeys === true
    if (pending.refusal && !retired) return { seq, ...pending.refusal }
    if (!record) {
      return {
        seq,
        reason: 'record_missing',
        message: `the chain ends at seq ${this.#lastSeq}, before this signed head`,
      }
    }
    const chain = this.#chain!.result()
    if (!chain.valid) {
      return {
        seq,
        reason: 'chain_broken',
        message: `the chain breaks at seq ${chain.first_broken?.seq} first`,
      }
    }
    const signed = pending.payload?.hash ?? pending.checkpoint.hash
    const signedId = pending.payload?.record_id ?? pending.checkpoint.record_id
    if (signed !== record.hash || signedId !== record.id) {
      const from = (this.#lastVerified ?? this.#startsAfter ?? 0) + 1
      return {
        seq,
        reason: 'hash_mismatch',
        message: `record seq ${seq} is not the one signed: a record from seq ${from} to ${seq} was changed and the chain rebuilt`,
        changed_between: [from, seq],
      }
    }
    return retired ? 'key_retired' : 'verified'
  }
}
