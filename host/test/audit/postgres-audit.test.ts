import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { createStore } from '../../src/storage/create-store.js'
import type { Store } from '../../src/storage/store.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'
import { callEntryOf, postgresExec } from './audit-fixtures.js'
import { describeAuditStore, describeTamperDetection } from './audit-store-conformance.js'

describe('audit trail on PostgreSQL', { skip: skipWithoutDatabase }, () => {
  const url = TEST_DATABASE_URL!
  const schemas: string[] = []
  const schemaFor = (label: string) => {
    const schema = uniqueSchema(`audit_${label}`)
    schemas.push(schema)
    return schema
  }
  const open = async (schema: string) => {
    const store = createStore({ databaseUrl: url, schema })
    await store.init()
    return store
  }
  let store: Store

  before(async () => {
    store = await open(schemaFor('main'))
  })

  after(async () => {
    await store?.close()
    for (const schema of schemas) await dropSchema(url, schema)
  })

  describeAuditStore(() => store)

  describe('tampering in the database', () => {
    describeTamperDetection({ schema: schemaFor, open, exec: postgresExec(url) })
  })

  it('keeps one valid chain with 4 stores appending 50 records each in parallel', async () => {
    const schema = schemaFor('writers')
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(schema)))
    try {
      const trails = stores.map((s) => new AuditTrail(s))
      const written = await Promise.all(
        trails.flatMap((trail, w) =>
          Array.from({ length: 50 }, (_, i) => trail.append(callEntryOf({ agent_id: `w${w}`, status: i }))),
        ),
      )
      const seqs = written.map((r) => r.seq).sort((a, b) => a - b)
      assert.deepEqual(
        seqs,
        Array.from({ length: 200 }, (_, i) => i + 1),
        'every append got its own seq, without gaps',
      )
      const result = await trails[0]!.verify()
      assert.deepEqual(result, { valid: true, records: 200, head: result.head })
      assert.equal(result.head?.seq, 200)
      for (let w = 0; w < 4; w++) {
        assert.equal((await trails[3]!.list({ agentId: `w${w}`, order: 'asc', limit: 100 })).length, 50)
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()))
    }
  })
})
