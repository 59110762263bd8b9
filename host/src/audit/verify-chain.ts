/**
 * Re-checking the chain record by record, in `seq` order. The first record
 * that fails a check is the first broken one; what broke it:
 *
 * | reason               | the record…                                                        |
 * |----------------------|--------------------------------------------------------------------|
 * | `seq_gap`            | does not carry the next `seq` (a record before it was deleted)      |
 * | `prev_hash_mismatch` | does not link to the record before it (inserted, moved, reordered)  |
 * | `hash_mismatch`      | does not hash to its `hash` (a field was edited)                    |
 */
import type { AuditRecord } from '../storage/store.js'
import { GENESIS_HASH, hashRecord } from './hash-chain.js'

/** Why a record broke the chain. */
export type BreakReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch'

/** The first record that fails verification. */
export interface ChainBreak {
  readonly seq: number
  readonly id: string
  readonly reason: BreakReason
}

/** The answer of `GET /audit/verify`. */
export interface VerifyResult {
  readonly valid: boolean
  /** Records in the chain. */
  readonly records: number
  readonly first_broken?: ChainBreak
  /** The last record: keep it elsewhere to detect later truncation or a rewrite of the whole chain. */
  readonly head: { readonly seq: number; readonly hash: string } | null
  /**
   * Present when the store dropped the oldest records (the memory store's cap):
   * the chain was checked from the record after this one, linking to its hash.
   */
  readonly anchor?: { readonly seq: number; readonly hash: string }
}

/** Feed records in `seq` order with {@link ChainVerifier.add}; read the verdict with {@link ChainVerifier.result}. */
export class ChainVerifier {
  #count = 0
  #expectedSeq = 1
  #prevHash = GENESIS_HASH
  #broken: ChainBreak | undefined
  #head: { seq: number; hash: string } | null = null
  readonly #anchor: { seq: number; hash: string } | undefined

  /** @param anchor the last record before the first one fed, when older records were dropped */
  constructor(anchor?: { seq: number; hash: string }) {
    if (anchor) {
      this.#anchor = { seq: anchor.seq, hash: anchor.hash }
      this.#expectedSeq = anchor.seq + 1
      this.#prevHash = anchor.hash
      this.#head = { ...this.#anchor }
    }
  }

  add(record: AuditRecord): void {
    this.#count += 1
    this.#head = { seq: record.seq, hash: record.hash }
    // After the first break the rest is only counted: its links are meaningless.
    if (this.#broken) return
    const reason = this.#check(record)
    if (reason) this.#broken = { seq: record.seq, id: record.id, reason }
    this.#expectedSeq = record.seq + 1
    this.#prevHash = record.hash
  }

  result(): VerifyResult {
    return {
      valid: this.#broken === undefined,
      records: this.#count,
      ...(this.#broken ? { first_broken: this.#broken } : {}),
      head: this.#head,
      ...(this.#anchor ? { anchor: this.#anchor } : {}),
    }
  }

  #check(record: AuditRecord): BreakReason | undefined {
    if (record.seq !== this.#expectedSeq) return 'seq_gap'
    if (record.prev_hash !== this.#prevHash) return 'prev_hash_mismatch'
    let computed: string
    try {
      computed = hashRecord(record)
    } catch {
      // A value edited into something canonical JSON refuses (e.g. a lone surrogate).
      return 'hash_mismatch'
    }
    return computed === record.hash ? undefined : 'hash_mismatch'
  }
}

/** Verify a whole chain held in memory (tests, offline checks of an export). */
export function verifyRecords(records: Iterable<AuditRecord>): VerifyResult {
  const verifier = new ChainVerifier()
  for (const record of records) verifier.add(record)
  return verifier.result()
}
