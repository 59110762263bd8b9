/**
 * Two gateway replicas sharing one PostgreSQL schema and one Redis, for the
 * agent-control steps' end-to-end tests (guard_loops, break_circuit,
 * track_cost): state set through one replica must hold on the other.
 */
import { randomBytes } from 'node:crypto'
import { startMockProvider, startTestGateway, type TestGateway } from '@gov/host/testing'
import pg from 'pg'

const redisUrl = process.env.GOV_TEST_REDIS_URL
const databaseUrl = process.env.GOV_TEST_DATABASE_URL

/** `skip` option of a test that needs both; false when they are set. */
export const skipWithoutScaleOut: string | false =
  redisUrl && databaseUrl ? false : 'GOV_TEST_REDIS_URL and GOV_TEST_DATABASE_URL not set'

/** A short random suffix, so names in the shared Redis never collide between runs. */
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`

/** Run `fn` with two replicas on one mock provider, one database schema and one Redis; tear all down after. */
export async function withTwoReplicas(
  name: string,
  fn: (a: TestGateway, b: TestGateway) => Promise<void>,
): Promise<void> {
  const schema = `gov_test_${name}_${process.pid}_${randomBytes(3).toString('hex')}`
  const mock = await startMockProvider()
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl }
  const a = await startTestGateway({ plugins: [], mock, env, start: { databaseSchema: schema } })
  const b = await startTestGateway({ plugins: [], mock, env, start: { databaseSchema: schema } })
  try {
    await fn(a, b)
  } finally {
    await a.close()
    await b.close()
    await mock.close()
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    await client.query(`drop schema if exists "${schema}" cascade`)
    await client.end()
  }
}
