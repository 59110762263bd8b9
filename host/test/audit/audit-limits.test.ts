/**
 * The audit trail's bounds: the memory store's record cap (verification
 * starts at the oldest kept record) and the deadline of an append against a
 * store that never answers.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { AuditErrorCodes } from '../../src/audit/audit-errors.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditHead, AuditRecord } from '../../src/storage/store.js'
import { callEntryOf } from './audit-fixtures.js'

/** A memory store whose audit appends hang until `release()`. */
class HangingStore extends MemoryStore {
  #waiting: (() => void)[] = []

  override async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
    return super.appendAudit(seal)
  }

  release(): void {
    for (const resolve of this.#waiting.splice(0)) resolve()
  }
}

function isUnavailable(error: unknown): boolean {
  return error instanceof GovError && error.code === AuditErrorCodes.UNAVAILABLE && error.status === 503
}

describe('memory audit cap', () => {
  it('keeps at most auditMax records, warns, and still verifies the kept chain', async () => {
    const store = new MemoryStore({ auditMax: 10 })
    const trail = new AuditTrail(store)
    assert.deepEqual(store.warnings(), [])
    for (let i = 0; i < 25; i++) await trail.append(callEntryOf({ status: i }))
    const kept = await store.listAudit({ order: 'asc', limit: 100 })
    assert.ok(kept.length <= 10 && kept.length >= 9, `kept ${kept.length}`)
    assert.equal(kept.at(-1)!.seq, 25)
    assert.equal(kept[0]!.prev_hash, store.auditAnchor()!.hash)
    const result = await trail.verify()
    assert.equal(result.valid, true)
    assert.equal(result.records, kept.length)
    assert.deepEqual(result.anchor, store.auditAnchor())
    assert.match(store.warnings()[0]!, /^audit_records_dropped/)
  })

  it('pages by cursor over the kept records in both orders', async () => {
    const store = new MemoryStore({ auditMax: 20 })
    const trail = new AuditTrail(store, { verifyPageSize: 3 })
    for (let i = 0; i < 47; i++) await trail.append(callEntryOf())
    const kept = (await store.listAudit({ order: 'asc', limit: 100 })).map((r) => r.seq)
    const desc = (await store.listAudit({ order: 'desc', limit: 100 })).map((r) => r.seq)
    assert.deepEqual(desc, [...kept].reverse())
    const afterCursor = await store.listAudit({ order: 'asc', limit: 2, afterSeq: kept[3]! })
    assert.deepEqual(
      afterCursor.map((r) => r.seq),
      kept.slice(4, 6),
    )
    const beforeCursor = await store.listAudit({ order: 'desc', limit: 2, beforeSeq: kept[3]! })
    assert.deepEqual(
      beforeCursor.map((r) => r.seq),
      [kept[2], kept[1]],
    )
    assert.equal((await trail.verify()).valid, true, 'paged verification from the anchor')
  })
})

describe('append deadline', () => {
  it('fails an append the store does not commit in time with 503, and never writes one still waiting', async () => {
    const store = new HangingStore()
    const trail = new AuditTrail(store, { appendTimeoutMs: 50, stallMs: 10 })
    const first = trail.append(callEntryOf({ status: 1 })) // goes to the store and hangs there
    const second = trail.append(callEntryOf({ status: 2 })) // waits behind it
    await assert.rejects(first, isUnavailable)
    await assert.rejects(second, isUnavailable)
    assert.throws(() => trail.assertWritable(), isUnavailable)
    store.release()
    await trail.idle()
    const written = await store.listAudit({ order: 'asc', limit: 10 })
    assert.deepEqual(
      written.map((r) => r.status),
      [1],
      'the one in flight may land late; the waiting one never does',
    )
  })

  it('fails each append at its own deadline, never before it, a later append no earlier', async () => {
    const store = new HangingStore()
    const trail = new AuditTrail(store, { appendTimeoutMs: 200, stallMs: 10 })
    /** When an append was made and when it failed. */
    const watch = (status: number) => {
      const started = performance.now()
      const failed = trail.append(callEntryOf({ status })).then(
        () => assert.fail('an append the store never committed succeeded'),
        (error: unknown) => {
          assert.ok(isUnavailable(error))
          return performance.now()
        },
      )
      return { started, failed }
    }
    const a = watch(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const b = watch(2)
    const [aFailed, bFailed] = await Promise.all([a.failed, b.failed])
    // A busy machine only makes a timer late, never early.
    assert.ok(aFailed - a.started >= 199, `the first failed after ${aFailed - a.started} ms`)
    assert.ok(bFailed - b.started >= 199, `the second failed after ${bFailed - b.started} ms`)
    assert.ok(bFailed >= aFailed)
    store.release()
    await trail.idle()
  })

  it('leaves no timer holding the process once every append is answered', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    const trail = new AuditTrail(new MemoryStore(), { appendTimeoutMs: 60_000 })
    const waiting = [1, 2, 3].map((status) => trail.append(callEntryOf({ status })))
    assert.equal(timers(), before + 1, 'one deadline timer while appends wait')
    await Promise.all(waiting)
    assert.equal(timers(), before, 'answered: the timer no longer holds the process')
    await trail.append(callEntryOf({ status: 4 }))
    assert.equal(timers(), before)
  })

  it('is writable again after a write succeeds', async () => {
    const store = new HangingStore()
    const trail = new AuditTrail(store, { appendTimeoutMs: 30, failureHoldMs: 60_000 })
    await assert.rejects(trail.append(callEntryOf()), isUnavailable)
    assert.equal(trail.writable(), false)
    store.release()
    await trail.idle()
    const next = trail.append(callEntryOf())
    await new Promise((resolve) => setImmediate(resolve))
    store.release()
    await next
    assert.equal(trail.writable(), true)
  })
})

describe('management changes and their records', () => {
  /** A memory store whose audit appends fail while `failing` is set. */
  class FailingAuditStore extends MemoryStore {
    failing = false
    override async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
      if (this.failing) throw new Error('disk full')
      return super.appendAudit(seal)
    }
  }
  const pipeline = (id: string) => ({ pipeline_id: id, preset: 'standard', overrides: {}, allow_flags: [] })

  it('undoes the change when its record fails, without undoing a write made meanwhile from outside', async () => {
    const store = new FailingAuditStore()
    const trail = new AuditTrail(store)
    await store.createPipeline(pipeline('kept'))
    store.failing = true
    let proceed!: () => void
    const gate = new Promise<void>((resolve) => {
      proceed = resolve
    })
    let opened!: () => void
    const open = new Promise<void>((resolve) => {
      opened = resolve
    })
    const change = trail.commit(
      async (tx) => {
        await tx.updatePipeline(pipeline('kept'))
        await tx.createPipeline(pipeline('undone'))
        opened()
        await gate
        return 'done'
      },
      () => ({ action: 'pipeline.create', status: 201 }),
    )
    await open
    // Another request writes while the transaction is open: it waits for the end, then applies.
    const outside = store.createPipeline(pipeline('outside'))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(await store.getPipeline('outside'), undefined, 'held while the transaction is open')
    proceed()
    await assert.rejects(change, isUnavailable)
    await outside
    assert.equal(await store.getPipeline('undone'), undefined)
    assert.equal((await store.getPipeline('kept'))?.version, 1, 'the update is undone too')
    assert.ok(await store.getPipeline('outside'), 'the outside write survives the undo')
    assert.equal(trail.writable(), false)
    store.failing = false
    assert.equal(
      await trail
        .commit(
          async (tx) => tx.createPipeline(pipeline('later')),
          () => ({ action: 'pipeline.create', status: 201 }),
        )
        .then((r) => r.pipeline_id),
      'later',
    )
    assert.equal(
      (await store.listAudit({ order: 'asc', limit: 10 })).length,
      1,
      'one record: the change that happened',
    )
  })
})
