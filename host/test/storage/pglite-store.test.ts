import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { createStore } from '../../src/storage/create-store.js'
import { STORE_NOT_OPEN } from '../../src/storage/sql-store.js'
import type { Store } from '../../src/storage/store.js'
import { assertDurable, describeStoreConformance, writeDurabilityProbe } from './store-conformance.js'

// A fresh PGlite costs seconds (initdb), so the whole file shares one data folder.
describe('pglite store', () => {
  let dataDir: string
  let store: Store

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gov-pglite-'))
    store = createStore({ dataDir })
    await store.init()
  })

  after(async () => {
    await store?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('is what createStore builds for a data folder', () => {
    assert.equal(store.kind, 'pglite')
  })

  describeStoreConformance(() => store)

  it('keeps its data across close and reopen of the folder', async () => {
    const probe = await writeDurabilityProbe(store)
    await store.close()
    assert.equal(await store.healthy(), false)
    store = createStore({ dataDir })
    // Reopening applies no migration twice: the migrations table remembers them.
    await store.init()
    await assertDurable(store, probe)
  })

  it('keeps a schema’s tables apart from the default schema in the same folder', async () => {
    await store.close()
    const scoped = createStore({ dataDir, schema: 'gov_scoped' })
    try {
      await scoped.init()
      assert.deepEqual(await scoped.listPipelines(), [])
      await scoped.createPipeline({
        pipeline_id: 'only-here',
        preset: 'standard',
        overrides: {},
        allow_flags: [],
      })
    } finally {
      await scoped.close()
    }
    store = createStore({ dataDir })
    await store.init()
    assert.equal(await store.getPipeline('only-here'), undefined)
  })

  it('throws GOV_ERR_STORAGE_NOT_OPEN when used before init()', async () => {
    const unopened = createStore({ dataDir: join(dataDir, 'never-opened') })
    const error = await unopened.listAgents().catch((e: unknown) => e)
    assert.ok(error instanceof GovError)
    assert.equal(error.code, STORE_NOT_OPEN)
    assert.equal(await unopened.healthy(), false)
  })
})
