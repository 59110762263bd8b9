import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createStore } from '../../src/storage/create-store.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditRecord } from '../../src/storage/store.js'
import { describeStoreConformance } from './store-conformance.js'

describe('memory store', () => {
  const store = new MemoryStore()
  describeStoreConformance(() => store)

  it('is what createStore builds without a database URL or data folder', () => {
    assert.equal(createStore().kind, 'memory')
    assert.equal(createStore({ schema: 'ignored' }).kind, 'memory')
  })
})

describe('memory store: audit record copies', () => {
  it('keeps appended records as they are and reads out deep copies equal to structuredClone ones (key order, prototypes, __proto__ keys, Dates)', async () => {
    const store = new MemoryStore()
    const detail = JSON.parse('{"b":[1,{"c":null}],"__proto__":{"x":1},"a":"é"}') as Record<string, unknown>
    detail.when = new Date(0)
    const sparse = [1, 2, 3]
    delete sparse[1]
    detail.sparse = sparse
    const record: AuditRecord = {
      seq: 1,
      id: 'r-1',
      time: new Date(0).toISOString(),
      kind: 'call',
      actor: 'agent:a',
      action: 'gateway.call',
      outcome: 'allowed',
      status: 200,
      agent_id: 'a',
      session_id: null,
      pipeline_id: null,
      pipeline_version: null,
      request_id: null,
      token_id: null,
      classification: 'public',
      detail,
      prev_hash: '0'.repeat(64),
      hash: 'f'.repeat(64),
    }
    const expected = structuredClone(record)
    const [returned] = await store.appendAudit(() => [record])
    assert.equal(
      returned,
      record,
      'the caller gets its own object back (the store keeps it: no copy per append)',
    )
    const [listed] = await store.listAudit({ order: 'asc', limit: 10 })
    assert.deepEqual(listed, expected)
    assert.notEqual(listed, record, 'a read is a copy')
    assert.notEqual(listed!.detail, record.detail)
    assert.notEqual(listed!.detail.b, detail.b)
    assert.deepEqual(Object.keys(listed!), Object.keys(record))
    assert.deepEqual(Object.keys(listed!.detail), Object.keys(expected.detail))
    assert.ok(Object.hasOwn(listed!.detail, '__proto__'))
    assert.equal(Object.getPrototypeOf(listed!.detail), Object.prototype)
    assert.ok(listed!.detail.when instanceof Date)
    assert.equal(1 in (listed!.detail.sparse as unknown[]), false)
    // Each read is a copy of its own.
    ;(listed!.detail.b as unknown[]).push('again')
    const [again] = await store.listAudit({ order: 'asc', limit: 10 })
    assert.deepEqual(again, expected)
  })
})
