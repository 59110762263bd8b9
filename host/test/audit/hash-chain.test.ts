import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import canonicalize from 'canonicalize'
import { canonicalJson, storableText } from '../../src/audit/digest.js'
import { GENESIS_HASH, hashRecord, sealRecords } from '../../src/audit/hash-chain.js'
import { verifyRecords } from '../../src/audit/verify-chain.js'
import type { AuditRecord } from '../../src/storage/store.js'
import { callEntryOf } from './audit-fixtures.js'

const chainOf = (n: number): AuditRecord[] =>
  sealRecords(
    undefined,
    Array.from({ length: n }, (_, i) => callEntryOf({ outcome: i === 2 ? 'blocked' : 'allowed' })),
  )

describe('hash chain', () => {
  it('numbers records from 1 and links each to the previous hash, starting at 64 zeros', () => {
    const records = chainOf(3)
    assert.deepEqual(
      records.map((r) => r.seq),
      [1, 2, 3],
    )
    assert.equal(records[0]!.prev_hash, GENESIS_HASH)
    assert.equal(records[1]!.prev_hash, records[0]!.hash)
    assert.equal(records[2]!.prev_hash, records[1]!.hash)
    assert.match(records[0]!.hash, /^[0-9a-f]{64}$/)
  })

  it('continues after a head', () => {
    const [first] = chainOf(1)
    const [next] = sealRecords({ seq: first!.seq, hash: first!.hash }, [callEntryOf()])
    assert.equal(next!.seq, 2)
    assert.equal(next!.prev_hash, first!.hash)
    assert.equal(verifyRecords([first!, next!]).valid, true)
  })

  it('is the documented formula: SHA-256 of the RFC 8785 JSON of the record without "hash"', () => {
    for (const record of chainOf(3)) {
      const { hash, ...content } = record
      const offline = createHash('sha256').update(canonicalize(content)!, 'utf8').digest('hex')
      assert.equal(offline, hash)
    }
  })

  it('does not depend on key order', () => {
    const [record] = chainOf(1)
    const reversed = Object.fromEntries(Object.entries(record!).reverse()) as unknown as AuditRecord
    assert.equal(hashRecord(reversed), record!.hash)
  })

  it('canonicalises as RFC 8785 says: sorted keys, shortest numbers, no whitespace', () => {
    assert.equal(
      canonicalJson({ b: [1e21, 0.1, -0], a: 'é', c: null }),
      '{"a":"é","b":[1e+21,0.1,0],"c":null}',
    )
    assert.throws(() => canonicalJson({ x: Number.NaN }))
  })

  it('makes step-chosen names storable: lone surrogates and NUL become U+FFFD', () => {
    assert.equal(storableText('a\uD800b\u0000c😀'), 'a\uFFFDb\uFFFDc😀')
    assert.equal(storableText('\uDC00 only'), '\uFFFD only')
    assert.equal(storableText('nul \u0000 only'), 'nul \uFFFD only')
    assert.equal(storableText('plain é 😀'), 'plain é 😀')
  })
})

describe('chain verification', () => {
  it('accepts an intact chain and reports its head', () => {
    const records = chainOf(5)
    assert.deepEqual(verifyRecords(records), {
      valid: true,
      records: 5,
      head: { seq: 5, hash: records[4]!.hash },
    })
  })

  it('accepts the empty chain', () => {
    assert.deepEqual(verifyRecords([]), { valid: true, records: 0, head: null })
  })

  it('names an edited record (hash_mismatch)', () => {
    const records = chainOf(5)
    records[2] = { ...records[2]!, outcome: 'allowed' }
    const result = verifyRecords(records)
    assert.equal(result.valid, false)
    assert.deepEqual(result.first_broken, { seq: 3, id: records[2]!.id, reason: 'hash_mismatch' })
    assert.equal(result.records, 5)
  })

  it('names an edit inside the nested detail', () => {
    const records = chainOf(4)
    records[1] = { ...records[1]!, detail: { ...records[1]!.detail, findings: [] } }
    assert.deepEqual(verifyRecords(records).first_broken, {
      seq: 2,
      id: records[1]!.id,
      reason: 'hash_mismatch',
    })
  })

  it('names the record after a deleted one (seq_gap)', () => {
    const records = chainOf(5)
    const after = records[3]!
    records.splice(2, 1)
    assert.deepEqual(verifyRecords(records).first_broken, { seq: 4, id: after.id, reason: 'seq_gap' })
  })

  it('names a record whose hash alone was replaced', () => {
    const records = chainOf(3)
    records[1] = { ...records[1]!, hash: 'f'.repeat(64) }
    assert.deepEqual(verifyRecords(records).first_broken, {
      seq: 2,
      id: records[1]!.id,
      reason: 'hash_mismatch',
    })
  })

  it('names the record after a well-forged insertion, and a badly forged one itself', () => {
    const records = chainOf(4)
    // Forged with the right formula and link: only the record it displaced can tell.
    const [forged] = sealRecords({ seq: 2, hash: records[1]!.hash }, [callEntryOf({ outcome: 'allowed' })])
    const shifted = records.slice(2).map((r) => ({ ...r, seq: r.seq + 1 }))
    const tampered = [records[0]!, records[1]!, forged!, ...shifted]
    assert.deepEqual(verifyRecords(tampered).first_broken, {
      seq: 4,
      id: records[2]!.id,
      reason: 'prev_hash_mismatch',
    })

    const appended = { ...forged!, seq: 5, prev_hash: 'e'.repeat(64) }
    assert.deepEqual(verifyRecords([...records, appended]).first_broken, {
      seq: 5,
      id: forged!.id,
      reason: 'prev_hash_mismatch',
    })
  })

  it('names the first of two swapped records (prev_hash_mismatch)', () => {
    const records = chainOf(6)
    const [second, fifth] = [records[1]!, records[4]!]
    records[1] = { ...fifth, seq: 2 }
    records[4] = { ...second, seq: 5 }
    assert.deepEqual(verifyRecords(records).first_broken, {
      seq: 2,
      id: fifth.id,
      reason: 'prev_hash_mismatch',
    })
  })
})
