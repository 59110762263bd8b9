import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { createStore } from '../../src/storage/create-store.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import {
  DEFAULT_STORAGE_SETTINGS,
  readStorageSettings,
  STORAGE_SETTING_INVALID,
} from '../../src/storage/storage-settings.js'
import { callEntryOf } from '../audit/audit-fixtures.js'

describe('storage settings', () => {
  it('has documented defaults', () => {
    assert.deepEqual(readStorageSettings({}), DEFAULT_STORAGE_SETTINGS)
    assert.deepEqual(DEFAULT_STORAGE_SETTINGS, {
      statementTimeoutMs: 3000,
      acquireTimeoutMs: 3000,
      poolMax: 10,
      applicationName: 'gov',
      memoryAuditMax: 20_000,
    })
  })

  it('reads every variable', () => {
    assert.deepEqual(
      readStorageSettings({
        GOV_DB_STATEMENT_TIMEOUT_MS: '1500',
        GOV_DB_ACQUIRE_TIMEOUT_MS: '700',
        GOV_DB_POOL_MAX: '4',
        GOV_DB_APPLICATION_NAME: 'gov-eu-1',
        GOV_MEMORY_AUDIT_MAX: '50',
      }),
      {
        statementTimeoutMs: 1500,
        acquireTimeoutMs: 700,
        poolMax: 4,
        applicationName: 'gov-eu-1',
        memoryAuditMax: 50,
      },
    )
  })

  it('refuses unusable values with GOV_ERR_CONFIG_INVALID', () => {
    for (const env of [
      { GOV_DB_STATEMENT_TIMEOUT_MS: '0' },
      { GOV_DB_ACQUIRE_TIMEOUT_MS: '-5' },
      { GOV_DB_POOL_MAX: '2.5' },
      { GOV_MEMORY_AUDIT_MAX: 'lots' },
      { GOV_DB_APPLICATION_NAME: 'x'.repeat(64) },
    ]) {
      assert.throws(() => readStorageSettings(env), { code: STORAGE_SETTING_INVALID }, JSON.stringify(env))
    }
  })

  it('gives the memory store its audit cap through createStore', async () => {
    const store = createStore(readStorageSettings({ GOV_MEMORY_AUDIT_MAX: '5' }))
    assert.ok(store instanceof MemoryStore)
    const trail = new AuditTrail(store)
    for (let i = 0; i < 8; i++) await trail.append(callEntryOf())
    assert.ok((await store.listAudit({ order: 'asc', limit: 100 })).length <= 5)
  })

  it('gives a PostgreSQL store its deadline (statement timeout plus the client grace)', () => {
    const store = createStore({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', statementTimeoutMs: 1500 })
    assert.equal(store.deadlineMs, 2500)
  })
})
