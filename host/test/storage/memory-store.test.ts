import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createStore } from '../../src/storage/create-store.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import { describeStoreConformance } from './store-conformance.js'

describe('memory store', () => {
  const store = new MemoryStore()
  describeStoreConformance(() => store)

  it('is what createStore builds without a database URL or data folder', () => {
    assert.equal(createStore().kind, 'memory')
    assert.equal(createStore({ schema: 'ignored' }).kind, 'memory')
  })
})
