import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createStore } from '../../src/storage/create-store.js'
import type { Store } from '../../src/storage/store.js'
import { dropSchema, skipWithoutDatabase, TEST_DATABASE_URL, uniqueSchema } from './postgres-schema.js'
import { assertDurable, describeStoreConformance, writeDurabilityProbe } from './store-conformance.js'

describe('postgres store', { skip: skipWithoutDatabase }, () => {
  const url = TEST_DATABASE_URL!
  const schema = uniqueSchema('store')
  let store: Store

  before(async () => {
    store = createStore({ databaseUrl: url, schema })
    await store.init()
  })

  after(async () => {
    await store?.close()
    await dropSchema(url, schema)
  })

  it('is what createStore builds for a database URL', () => {
    assert.equal(store.kind, 'postgres')
  })

  describeStoreConformance(() => store)

  it('shows one instance’s writes to a new instance on the same database', async () => {
    const probe = await writeDurabilityProbe(store)
    const other = createStore({ databaseUrl: url, schema })
    try {
      await other.init()
      await assertDurable(other, probe)
    } finally {
      await other.close()
    }
  })

  it('lets several replicas migrate a fresh schema at the same time', async () => {
    const fresh = uniqueSchema('race')
    const replicas = Array.from({ length: 3 }, () => createStore({ databaseUrl: url, schema: fresh }))
    try {
      await Promise.all(replicas.map((r) => r.init()))
      await replicas[0]!.createPipeline({
        pipeline_id: 'p',
        preset: 'standard',
        overrides: {},
        allow_flags: [],
      })
      assert.equal((await replicas[2]!.getPipeline('p'))?.version, 1)
    } finally {
      await Promise.all(replicas.map((r) => r.close()))
      await dropSchema(url, fresh)
    }
  })
})

describe('postgres store, database down', () => {
  it('fails init and reports unhealthy instead of hanging', async () => {
    const port = await closedPort()
    const store = createStore({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/test` })
    const started = Date.now()
    await assert.rejects(store.init())
    assert.equal(await store.healthy(), false)
    assert.ok(Date.now() - started < 5000)
    await store.close()
  })
})

/** A loopback port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
