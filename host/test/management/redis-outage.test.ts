/**
 * Admin changes with Redis down, through the HTTP API, on a private
 * redis-server the test stops: each change is done, audited and answered with
 * success, never answered 503 with the change done.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { AuditRecord } from '../../src/storage/store.js'
import { chatBody, onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import { type PrivateRedis, skipWithoutRedisServer, startPrivateRedis } from '../kv/redis-server.js'

describe('admin changes while Redis is down', { skip: skipWithoutRedisServer }, () => {
  let redis: PrivateRedis
  let t: TestGateway
  let rotatedKey: string
  let deletedKey: string

  before(async () => {
    redis = await startPrivateRedis()
    t = await startTestGateway({ env: { REDIS_URL: redis.url } })
    await t.createPipeline('ro', 'standard', onlySteps('standard', { fx_pass: {} }))
    rotatedKey = await t.createAgent('ro-rotate', 'ro')
    deletedKey = await t.createAgent('ro-delete', 'ro')
    for (const key of [rotatedKey, deletedKey]) {
      assert.equal((await t.call('/v1/chat/completions', chatBody('warm the cache'), { key })).status, 200)
    }
    await redis.stop()
  })
  after(async () => {
    await t?.close()
    await redis?.stop()
  })

  const lastAdminRecord = async (): Promise<AuditRecord> => {
    const res = await t.admin('GET', '/audit?kind=admin&limit=1')
    assert.equal(res.status, 200)
    return res.body.records[0]
  }

  it('deletes an agent: 204, audited, and its key stops working', async () => {
    const res = await t.admin('DELETE', '/agents/ro-delete')
    assert.equal(res.status, 204)
    const record = await lastAdminRecord()
    assert.deepEqual([record.action, record.agent_id], ['agent.delete', 'ro-delete'])
    const call = await t.call('/v1/chat/completions', chatBody('still me?'), { key: deletedKey })
    assert.equal(call.status, 401)
  })

  it('rotates a key: 200 with the new key, audited; the new key works and the old one does not', async () => {
    const res = await t.admin('POST', '/agents/ro-rotate/rotate-key')
    assert.equal(res.status, 200)
    assert.match(res.body.api_key, /^gov_/)
    const record = await lastAdminRecord()
    assert.deepEqual([record.action, record.agent_id], ['agent.rotate_key', 'ro-rotate'])
    const fresh = await t.call('/v1/chat/completions', chatBody('new key'), { key: res.body.api_key })
    assert.equal(fresh.status, 200)
    const old = await t.call('/v1/chat/completions', chatBody('old key'), { key: rotatedKey })
    assert.equal(old.status, 401)
  })

  it('updates and deletes pipelines: answered with success and audited', async () => {
    const update = await t.admin('PUT', '/pipelines/ro', {
      preset: 'standard',
      overrides: onlySteps('standard', { fx_pass: {}, fx_block: { word: 'nope' } }),
    })
    assert.equal(update.status, 200)
    assert.equal((await lastAdminRecord()).action, 'pipeline.update')
    assert.equal(
      (await t.admin('POST', '/pipelines', { pipeline_id: 'ro-2', preset: 'standard' })).status,
      201,
    )
    assert.equal((await t.admin('DELETE', '/pipelines/ro-2')).status, 204)
    assert.equal((await lastAdminRecord()).action, 'pipeline.delete')
  })

  it('reports Redis down in readiness, and ready again once it is back', async () => {
    const down = await fetch(`${t.url}/health/ready`)
    assert.equal(down.status, 503)
    assert.equal(((await down.json()) as { checks: { redis: string } }).checks.redis, 'error')
    await redis.start()
    let status = 0
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await fetch(`${t.url}/health/ready`)).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(status, 200)
  })
})
