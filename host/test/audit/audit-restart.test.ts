import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { AuditRecord } from '../../src/storage/store.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, onlySteps, startTestGateway } from '../../src/testing/test-gateway.js'
import { pgliteExec } from './audit-fixtures.js'

const chat = chatBody

describe('audit trail on the embedded file database, across restarts', () => {
  let mock: MockProvider
  let dataDir: string
  const start = () => startTestGateway({ mock, env: { GOV_DATA_DIR: dataDir } })

  before(async () => {
    mock = await startMockProvider()
    dataDir = await mkdtemp(join(tmpdir(), 'gov-audit-restart-'))
  })
  after(async () => {
    await mock.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('continues one chain after a restart, and /audit/verify names a record edited while stopped', async () => {
    let before: AuditRecord[]
    const first = await start()
    try {
      await first.createPipeline('kept', 'standard', onlySteps('standard', { fx_block: {} }))
      const key = await first.createAgent('kept-agent', 'kept')
      assert.equal((await first.call('/v1/chat/completions', chat('hello'), { key })).status, 200)
      assert.equal((await first.call('/v1/chat/completions', chat('forbidden'), { key })).status, 403)
      before = (await first.admin('GET', '/audit?order=asc')).body.records
      assert.equal(before.length, 4)
    } finally {
      await first.close()
    }

    const second = await start()
    try {
      await second.admin('DELETE', '/agents/kept-agent')
      const verified = await second.admin('GET', '/audit/verify')
      assert.equal(verified.body.valid, true)
      assert.equal(verified.body.records, 5, 'the new record joined the old chain')
      const [latest] = (await second.admin('GET', '/audit?limit=1')).body.records as AuditRecord[]
      assert.equal(latest!.prev_hash, before.at(-1)!.hash)
    } finally {
      await second.close()
    }

    const blocked = before.find((r) => r.outcome === 'blocked')!
    await pgliteExec(dataDir)('public', [
      `update audit_records set outcome = 'allowed', status = 200 where seq = ${blocked.seq}`,
    ])

    const third = await start()
    try {
      const verified = await third.admin('GET', '/audit/verify')
      assert.equal(verified.status, 200)
      assert.equal(verified.body.valid, false)
      assert.equal(verified.body.records, 5)
      assert.deepEqual(verified.body.first_broken, {
        seq: blocked.seq,
        id: blocked.id,
        reason: 'hash_mismatch',
      })
    } finally {
      await third.close()
    }
  })
})
