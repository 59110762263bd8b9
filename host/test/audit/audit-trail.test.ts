import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { AuditErrorCodes } from '../../src/audit/audit-errors.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditHead, AuditRecord, Store } from '../../src/storage/store.js'
import { callEntryOf } from './audit-fixtures.js'
import { describeAuditStore } from './audit-store-conformance.js'

/** A memory store that counts transactions and can be made to fail. */
class CountingStore extends MemoryStore {
  transactions = 0
  failing = false

  override async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
    this.transactions += 1
    // A real database answers later: let other appends queue meanwhile.
    await new Promise((resolve) => setImmediate(resolve))
    if (this.failing) throw new Error('database is down')
    return super.appendAudit(seal)
  }
}

async function rejectsWithCode(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof GovError)
  assert.equal(error.code, code)
  assert.equal(error.status, 503)
}

describe('audit trail on the memory store', () => {
  const store: Store = new MemoryStore()
  describeAuditStore(() => store)
})

describe('group commit', () => {
  it('writes concurrent appends in few transactions, in one valid chain', async () => {
    const store = new CountingStore()
    const trail = new AuditTrail(store)
    const records = await Promise.all(Array.from({ length: 200 }, () => trail.append(callEntryOf())))
    assert.deepEqual(
      records.map((r) => r.seq).sort((a, b) => a - b),
      Array.from({ length: 200 }, (_, i) => i + 1),
    )
    assert.ok(store.transactions <= 3, `200 appends took ${store.transactions} transactions`)
    assert.equal((await trail.verify()).valid, true)
  })

  it('caps a batch at maxBatch records', async () => {
    const store = new CountingStore()
    const trail = new AuditTrail(store, { maxBatch: 10 })
    await Promise.all(Array.from({ length: 50 }, () => trail.append(callEntryOf())))
    assert.ok(store.transactions >= 5, `50 appends in batches of 10 took ${store.transactions}`)
    assert.equal((await trail.verify()).records, 50)
  })

  it('resolves each append with its own record', async () => {
    const trail = new AuditTrail(new CountingStore())
    const entries = Array.from({ length: 20 }, () => callEntryOf())
    const records = await Promise.all(entries.map((e) => trail.append(e)))
    assert.deepEqual(
      records.map((r) => r.id),
      entries.map((e) => e.id),
    )
  })

  it('pages through long chains when verifying', async () => {
    const trail = new AuditTrail(new MemoryStore(), { verifyPageSize: 7 })
    await Promise.all(Array.from({ length: 30 }, () => trail.append(callEntryOf())))
    const result = await trail.verify()
    assert.equal(result.valid, true)
    assert.equal(result.records, 30)
    assert.equal(result.head?.seq, 30)
  })
})

describe('audit failures', () => {
  it('rejects every append of a failed batch with audit_unavailable and writes nothing', async () => {
    const store = new CountingStore()
    const trail = new AuditTrail(store)
    store.failing = true
    const appends = Array.from({ length: 5 }, () => trail.append(callEntryOf()))
    for (const append of appends) await rejectsWithCode(append, AuditErrorCodes.UNAVAILABLE)
    store.failing = false
    const record = await trail.append(callEntryOf())
    assert.equal(record.seq, 1, 'the chain goes on where it was')
  })

  it('refuses an entry that has no canonical form without failing its neighbours', async () => {
    const trail = new AuditTrail(new CountingStore())
    const good = trail.append(callEntryOf())
    const bad = trail.append(callEntryOf({ detail: { ms: Number.NaN } }))
    await rejectsWithCode(bad, AuditErrorCodes.UNAVAILABLE)
    assert.equal((await good).seq, 1)
  })

  it('fails fast when the backlog is full', async () => {
    const trail = new AuditTrail(new CountingStore(), { maxPending: 3 })
    const first = trail.append(callEntryOf()) // taken into the first batch at once
    const queued = [1, 2, 3].map(() => trail.append(callEntryOf()))
    await rejectsWithCode(trail.append(callEntryOf()), AuditErrorCodes.UNAVAILABLE)
    await Promise.all([first, ...queued])
  })

  it('idle() waits for records being written', async () => {
    const trail = new AuditTrail(new CountingStore())
    let written = 0
    for (let i = 0; i < 3; i++) void trail.append(callEntryOf()).then(() => written++)
    await trail.idle()
    assert.equal(written, 3)
  })
})
