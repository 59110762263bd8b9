import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, onlySteps, startTestGateway } from '../../src/testing/test-gateway.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'

const chat = chatBody

describe('pipelines, agents and keys survive a restart', () => {
  let mock: MockProvider
  before(async () => {
    mock = await startMockProvider()
  })
  after(() => mock.close())

  async function survives(env: NodeJS.ProcessEnv, schema: string | undefined, storage: string) {
    const start = () =>
      startTestGateway({ mock, env, ...(schema ? { start: { databaseSchema: schema } } : {}) })
    const first = await start()
    let key: string
    try {
      await first.createPipeline('kept', 'standard', onlySteps('standard', { fx_block: {} }))
      key = await first.createAgent('kept-agent', 'kept')
      assert.equal((await first.admin('GET', '/health')).body.storage, storage)
    } finally {
      await first.close()
    }
    const second = await start()
    try {
      const pipeline = await second.admin('GET', '/pipelines/kept')
      assert.equal(pipeline.status, 200)
      assert.equal(pipeline.body.steps.find((s: { name: string }) => s.name === 'fx_block').status, 'active')
      assert.equal(
        (await second.call('/v1/chat/completions', chat('hello'), { key })).status,
        200,
        'the key still works',
      )
      assert.equal(
        (await second.call('/v1/chat/completions', chat('forbidden'), { key })).status,
        403,
        'the pipeline still applies',
      )
    } finally {
      await second.close()
    }
  }

  it('on the embedded file database (GOV_DATA_DIR)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gov-pglite-'))
    try {
      await survives({ GOV_DATA_DIR: dir }, undefined, 'pglite')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('on PostgreSQL (DATABASE_URL)', { skip: skipWithoutDatabase }, async () => {
    const schema = uniqueSchema('gw')
    try {
      await survives({ DATABASE_URL: TEST_DATABASE_URL }, schema, 'postgres')
    } finally {
      await dropSchema(TEST_DATABASE_URL as string, schema)
    }
  })
})

const skipScaleOut =
  skipWithoutDatabase || (process.env.GOV_TEST_REDIS_URL ? false : 'GOV_TEST_REDIS_URL not set')

describe('two replicas sharing PostgreSQL and Redis', { skip: skipScaleOut }, () => {
  it('see each other\u2019s pipeline updates, reassignments and key rotations on the next call', async () => {
    const schema = uniqueSchema('replicas')
    const mock = await startMockProvider()
    const env = { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: process.env.GOV_TEST_REDIS_URL }
    const a = await startTestGateway({ mock, env, start: { databaseSchema: schema } })
    const b = await startTestGateway({ mock, env, start: { databaseSchema: schema } })
    try {
      assert.equal((await b.admin('GET', '/health/ready')).body.checks.redis, 'ok')
      await a.createPipeline('shared', 'standard', onlySteps('standard', { fx_pass: {} }))
      const key = await a.createAgent('shared-agent', 'shared')
      // B caches the agent, the pipeline and its chain.
      assert.equal((await b.call('/v1/chat/completions', chat('forbidden'), { key })).status, 200)
      assert.equal(
        (
          await a.admin('PUT', '/pipelines/shared', {
            preset: 'standard',
            overrides: onlySteps('standard', { fx_block: {} }),
          })
        ).status,
        200,
      )
      await new Promise((r) => setTimeout(r, 100))
      assert.equal(
        (await b.call('/v1/chat/completions', chat('forbidden'), { key })).status,
        403,
        'B sees the update',
      )

      const rotated = await a.admin('POST', '/agents/shared-agent/rotate-key')
      await new Promise((r) => setTimeout(r, 100))
      assert.equal(
        (await b.call('/v1/chat/completions', chat('hi'), { key })).status,
        401,
        'B drops the old key',
      )
      assert.equal(
        (await b.call('/v1/chat/completions', chat('hi'), { key: rotated.body.api_key })).status,
        200,
      )
    } finally {
      await a.close()
      await b.close()
      await mock.close()
      await dropSchema(TEST_DATABASE_URL as string, schema)
    }
  })
})
