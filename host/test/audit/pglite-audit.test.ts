import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import { createStore } from '../../src/storage/create-store.js'
import type { Store } from '../../src/storage/store.js'
import { pgliteExec } from './audit-fixtures.js'
import { describeAuditStore, describeTamperDetection } from './audit-store-conformance.js'

// A fresh PGlite costs seconds (initdb): the file shares one folder, one schema per scenario.
describe('audit trail on PGlite', () => {
  let dataDir: string
  let store: Store

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gov-audit-pglite-'))
    store = createStore({ dataDir, schema: 'audit_main' })
    await store.init()
  })

  after(async () => {
    await store?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  describeAuditStore(() => store)

  describe('tampering in the database', () => {
    // The tamper scenarios open and close the folder themselves: one PGlite per folder at a time.
    before(() => store.close())
    describeTamperDetection({
      schema: (label) => `audit_tamper_${label}`,
      open: async (schema) => {
        const s = createStore({ dataDir, schema })
        await s.init()
        return s
      },
      exec: (schema, statements) => pgliteExec(dataDir)(schema, statements),
    })
  })
})
