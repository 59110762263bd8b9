/**
 * Admin actions reach every replica: a policy reload sent to one gateway is
 * applied by the other (two gateways on one PostgreSQL and Redis, one policy file).
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { DEFAULT_POLICY_FILE } from '../../src/auth/policy-files.js'
import { startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'

const skip = skipWithoutDatabase || (process.env.GOV_TEST_REDIS_URL ? false : 'GOV_TEST_REDIS_URL not set')
const FORBID =
  '\n@id("no-gpt4o")\nforbid (principal, action == Action::"call", resource) when { resource.name == "gpt-4o" };\n'

describe('admin actions on every replica', { skip }, () => {
  const schema = uniqueSchema('replica_admin')
  const gateways: TestGateway[] = []
  let dir = ''
  let policy = ''
  let key = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gov-policy-'))
    policy = join(dir, 'policy.cedar')
    await writeFile(policy, await readFile(DEFAULT_POLICY_FILE, 'utf8'))
    const mock = await startMockProvider()
    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: process.env.GOV_TEST_REDIS_URL,
      GOV_POLICY_FILE: policy,
    }
    for (let i = 0; i < 2; i++) {
      gateways.push(await startTestGateway({ mock, env, start: { databaseSchema: schema } }))
    }
    await gateways[0]?.createPipeline('ra', 'standard', onlySteps('standard', { fx_pass: {} }))
    key = await (gateways[0] as TestGateway).createAgent('ra-agent', 'ra')
  })
  after(async () => {
    const mock = gateways[0]?.mock
    for (const g of gateways) await g.close()
    await mock?.close()
    await dropSchema(TEST_DATABASE_URL as string, schema)
    await rm(dir, { recursive: true, force: true })
  })

  it('applies a policy reload sent to one replica on the other', async () => {
    const [one, two] = gateways as [TestGateway, TestGateway]
    const call = () => two.call('/v1/chat/completions', chatBody('hi', { model: 'gpt-4o' }), { key })
    assert.equal((await call()).status, 200)
    await writeFile(policy, (await readFile(policy, 'utf8')) + FORBID)
    assert.equal((await one.admin('POST', '/admin/policy/reload')).status, 200)
    // The other replica hears it over Redis pub/sub: poll within a bound.
    let status = 0
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      status = (await call()).status
      if (status === 403) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(status, 403, 'the second replica reloaded the policy')
  })
})
