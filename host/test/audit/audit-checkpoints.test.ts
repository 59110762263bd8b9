/**
 * The checkpoint signer: on the interval, and with several replicas on one
 * PostgreSQL schema signing the same head at once (one checkpoint is stored);
 * online verification spots a chain rebuilt in the database.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { AuditCheckpoints } from '../../src/audit/checkpoint-service.js'
import { hashRecord } from '../../src/audit/hash-chain.js'
import { createLogger } from '../../src/logging.js'
import { GovMetrics } from '../../src/metrics/metrics.js'
import { EnvSecretSource } from '../../src/secrets/secret-source.js'
import { createStore } from '../../src/storage/create-store.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditRecord, Store } from '../../src/storage/store.js'
import { generateSigningKey } from '../../src/tokens/signing-key.js'
import { TokenService } from '../../src/tokens/token-service.js'
import { DEFAULT_TOKEN_SETTINGS } from '../../src/tokens/token-settings.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'
import { callEntryOf, postgresExec } from './audit-fixtures.js'

/** A token service with a configured key (`GOV_TOKEN_SIGNING_KEY`): replicas given the same text sign alike. */
async function tokenService(keyText?: string): Promise<TokenService> {
  const env: NodeJS.ProcessEnv = keyText ? { GOV_TOKEN_SIGNING_KEY: keyText } : {}
  const tokens = new TokenService({
    settings: DEFAULT_TOKEN_SETTINGS,
    secrets: new EnvSecretSource(env),
    metrics: new GovMetrics(),
    logger: createLogger('silent'),
    production: false,
  })
  await tokens.start()
  return tokens
}

async function sharedKeyText(): Promise<string> {
  const key = await generateSigningKey()
  const { KeyObject } = await import('node:crypto')
  const jwk = KeyObject.from(key.privateKey as Parameters<typeof KeyObject.from>[0])
  return JSON.stringify({ ...jwk.export({ format: 'jwk' }), kid: key.kid })
}

describe('audit checkpoints', () => {
  it('signs on the interval only when the head moved', async () => {
    const store = new MemoryStore()
    const trail = new AuditTrail(store)
    const checkpoints = new AuditCheckpoints({
      store,
      signer: await tokenService(),
      issuer: 'gov',
      intervalSeconds: 1,
    })
    checkpoints.start()
    try {
      await trail.append(callEntryOf())
      await new Promise((r) => setTimeout(r, 1500))
      assert.deepEqual(
        (await store.listCheckpoints({ order: 'asc', limit: 10 })).map((c) => c.seq),
        [1],
      )
      await new Promise((r) => setTimeout(r, 1000))
      assert.equal(
        (await store.listCheckpoints({ order: 'asc', limit: 10 })).length,
        1,
        'idle chain: nothing new',
      )
      await trail.append(callEntryOf())
      await trail.append(callEntryOf())
      await new Promise((r) => setTimeout(r, 1200))
      assert.deepEqual(
        (await store.listCheckpoints({ order: 'asc', limit: 10 })).map((c) => c.seq),
        [1, 3],
      )
    } finally {
      await checkpoints.stop()
    }
  })

  describe('replicas on one PostgreSQL schema', { skip: skipWithoutDatabase }, () => {
    const url = TEST_DATABASE_URL!
    const schema = uniqueSchema('checkpoints')
    const stores: Store[] = []
    after(async () => {
      for (const s of stores) await s.close()
      await dropSchema(url, schema)
    })

    it('store one checkpoint per head, and online verification catches a rebuilt chain', async () => {
      const keyText = await sharedKeyText()
      for (let i = 0; i < 3; i++) {
        const store = createStore({ databaseUrl: url, schema })
        await store.init()
        stores.push(store)
      }
      const replicas = await Promise.all(
        stores.map(
          async (store) =>
            new AuditCheckpoints({
              store,
              signer: await tokenService(keyText),
              issuer: 'gov',
              intervalSeconds: 0,
            }),
        ),
      )
      const trail = new AuditTrail(stores[0]!)
      for (let i = 0; i < 20; i++) await trail.append(callEntryOf({ status: 200 + i }))

      const results = await Promise.all(replicas.map((r) => r.checkpoint()))
      assert.equal(results.filter((r) => r?.created).length, 1, 'exactly one replica stored the head')
      assert.ok(
        results.every((r) => r?.checkpoint.jws === results.find((x) => x?.created)!.checkpoint.jws),
        'the others answer with the stored checkpoint',
      )
      assert.equal((await stores[1]!.listCheckpoints({ order: 'asc', limit: 10 })).length, 1)

      const intact = await replicas[2]!.verify()
      assert.equal(intact.valid, true, JSON.stringify(intact))
      assert.equal(intact.checkpoints.verified, 1)

      // Someone with write access edits record 7 and rebuilds every hash after it.
      const records = await stores[0]!.listAudit({ order: 'asc', limit: 100 })
      const statements: string[] = []
      let prev = records[5]!.hash
      for (const record of records.slice(6)) {
        const content: Omit<AuditRecord, 'hash'> = {
          ...record,
          prev_hash: prev,
          ...(record.seq === 7 ? { outcome: 'blocked' } : {}),
        }
        const { hash: _old, ...withoutHash } = content as AuditRecord
        const hash = hashRecord(withoutHash)
        statements.push(
          `update audit_records set outcome = '${content.outcome}', prev_hash = '${prev}', hash = '${hash}' where seq = ${record.seq}`,
        )
        prev = hash
      }
      await postgresExec(url)(schema, statements)
      const rebuilt = await replicas[0]!.verify()
      assert.equal(rebuilt.valid, false)
      assert.equal(rebuilt.first_broken, undefined, 'the rebuilt chain links')
      assert.equal(rebuilt.checkpoints.first_failed?.reason, 'hash_mismatch')
      assert.equal(rebuilt.checkpoints.first_failed?.seq, 20)
      assert.deepEqual(rebuilt.checkpoints.first_failed?.changed_between, [1, 20])
    })
  })
})
