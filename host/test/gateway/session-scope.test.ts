/**
 * Per-session state across replicas: two gateways on one PostgreSQL and one
 * Redis. Agent A's PII placeholders, set through one gateway, restore for A
 * through the other; agent B, sending the same session id to either, gets
 * nothing of A's.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, messagesBody, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'

const VICTIM = 'victim.person@corp-secret.example'
const skip = skipWithoutDatabase || (process.env.GOV_TEST_REDIS_URL ? false : 'GOV_TEST_REDIS_URL not set')

describe('sessions across two gateways on one PostgreSQL and Redis', { skip }, () => {
  const schema = uniqueSchema('sessions')
  const gateways: TestGateway[] = []
  let keyA = ''
  let keyB = ''
  before(async () => {
    const mock = await startMockProvider()
    const env = { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: process.env.GOV_TEST_REDIS_URL }
    for (let i = 0; i < 2; i++) {
      gateways.push(await startTestGateway({ plugins: [], mock, env, start: { databaseSchema: schema } }))
    }
    await gateways[0].createPipeline('sess-std', 'standard')
    keyA = await gateways[0].createAgent('sess-a', 'sess-std')
    keyB = await gateways[1].createAgent('sess-b', 'sess-std')
  })
  after(async () => {
    const mock = gateways[0]?.mock
    for (const g of gateways) await g.close()
    await mock?.close()
    await dropSchema(TEST_DATABASE_URL as string, schema)
  })

  it('restores agent A’s values for A on the other replica, and never for agent B', async () => {
    const [one, two] = gateways as [TestGateway, TestGateway]
    const session = `shared-${randomUUID().slice(0, 8)}`
    const headers = { 'X-Gov-Session': session }
    const mine = await one.call('/v1/chat/completions', chatBody(`my email is ${VICTIM}`), {
      key: keyA,
      headers,
    })
    assert.equal(mine.status, 200)
    assert.ok(!JSON.stringify(one.mock.requests.at(-1)?.body).includes(VICTIM))
    const probe = 'Please write a short note to <EMAIL_ADDRESS_1>'
    const againA = await two.call('/v1/chat/completions', chatBody(probe), { key: keyA, headers })
    assert.equal(againA.body.choices[0].message.content, `Please write a short note to ${VICTIM}`)
    for (const g of [one, two]) {
      const viaOpenAi = await g.call('/v1/chat/completions', chatBody(probe), { key: keyB, headers })
      const viaAnthropic = await g.call('/v1/messages', messagesBody(probe), { key: keyB, headers })
      assert.equal(viaOpenAi.status, 200)
      assert.equal(viaAnthropic.status, 200)
      assert.ok(
        !viaOpenAi.text.includes(VICTIM) && !viaAnthropic.text.includes(VICTIM),
        'B never sees A’s value',
      )
    }
  })
})
