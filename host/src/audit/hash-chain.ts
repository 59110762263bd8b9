/**
 * The hash chain. Each record's `hash` is
 *
 *     hash = hex(SHA-256(UTF-8(JCS(record without "hash"))))
 *
 * where the record includes `seq` and `prev_hash` (the previous record's
 * `hash`, or 64 zeros for `seq` 1) and JCS is RFC 8785 canonical JSON. So a
 * record's hash covers its content, its place and, through `prev_hash`, every
 * record before it.
 */
import type { AuditHead, AuditRecord } from '../storage/store.js'
import { sha256Hex } from './digest.js'
import { canonicalRecordJson } from './record-json.js'

/** `prev_hash` of the first record. */
export const GENESIS_HASH = '0'.repeat(64)

/** A record before it joins the chain: everything but its place and its hashes. */
export type AuditEntry = Omit<AuditRecord, 'seq' | 'prev_hash' | 'hash'>

/** The hash a record must carry: over every field except `hash` itself. */
export function hashRecord(record: Omit<AuditRecord, 'hash'> | AuditRecord): string {
  // The same bytes as canonicalJson(record without `hash`), without copying the record (record-json.ts).
  return sha256Hex(canonicalRecordJson(record, 'hash'))
}

/** Chain `entries` after `head` (the empty chain when undefined): number them and link their hashes. */
export function sealRecords(head: AuditHead | undefined, entries: readonly AuditEntry[]): AuditRecord[] {
  return sealEach(head, entries).map((record) => {
    if (!record) throw new TypeError('an audit entry has no canonical JSON form')
    return record
  })
}

/**
 * Like {@link sealRecords}, but an entry that cannot be hashed (a value canonical
 * JSON refuses, e.g. NaN) gets `undefined` in its slot and takes no `seq`, so
 * it cannot fail the entries batched with it.
 */
export function sealEach(
  head: AuditHead | undefined,
  entries: readonly AuditEntry[],
): (AuditRecord | undefined)[] {
  let seq = head?.seq ?? 0
  let prevHash = head?.hash ?? GENESIS_HASH
  const sealed = new Array<AuditRecord | undefined>(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const record = { seq: seq + 1, ...entries[i], prev_hash: prevHash } as AuditRecord
    let hash: string
    try {
      hash = hashRecord(record)
    } catch {
      sealed[i] = undefined
      continue
    }
    seq += 1
    prevHash = hash
    // Same key order as before (`hash` last), without a second copy.
    record.hash = hash
    sealed[i] = record
  }
  return sealed
}
