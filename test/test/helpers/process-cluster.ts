/**
 * Several `gov serve` processes on one fresh PostgreSQL database and the
 * shared Redis, in front of one mock provider: the set-up of the scale-out
 * tests. Each process has its own memory, so only what goes through the shared
 * stores can be seen across them.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { PRESETS } from '@gov/host'
import { type MockProvider, startMockProvider, TEST_DEADLINES } from '@gov/host/testing'
import pg from 'pg'
import { type ProcessGateway, startProcessGateway } from './process-gateway.js'

const DATABASE_URL = process.env.GOV_TEST_DATABASE_URL
const REDIS_URL = process.env.GOV_TEST_REDIS_URL
/** The skip reason of a cluster test when PostgreSQL or Redis is not given. */
export const skipWithoutCluster: string | false =
  DATABASE_URL && REDIS_URL ? false : 'GOV_TEST_DATABASE_URL and GOV_TEST_REDIS_URL are needed'

/** A JSON call; the body is parsed when it is JSON, else kept as text. */
export async function http(
  url: string,
  method: string,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, headers: res.headers, body: json }
}

/** A chat completion body with one user message. */
export const chat = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: text }],
  ...extra,
})

/** Overrides of the `standard` preset that switch every step off but the ones given. */
export function onlySteps(steps: Record<string, Record<string, unknown>>) {
  const all = PRESETS.standard?.steps.map((step) => step.name) ?? []
  return Object.fromEntries(all.map((name) => [name, steps[name] ?? { disabled: true }]))
}

export interface ProcessCluster {
  readonly mock: MockProvider
  /** The admin key of every process. */
  readonly admin: string
  /** Base URL of process `i`. */
  url(i: number): string
  /** A `standard` pipeline with `overrides`, created through process 0, and an agent on it created through process 1; resolves with the agent's key. */
  createAgent(pipelineId: string, agentId: string, overrides: Record<string, unknown>): Promise<string>
  /** Stop the processes and the mock, and drop the database. */
  stop(): Promise<void>
}

/** Start `count` processes (one after the other: the first runs the migrations) on a database of their own named from `name`. */
export async function startProcessCluster(options: {
  name: string
  env?: NodeJS.ProcessEnv
  count?: number
}): Promise<ProcessCluster> {
  const database = `${options.name}_${randomUUID().replaceAll('-', '').slice(0, 12)}`
  const admin = `admin-${randomUUID()}`
  const sql = async (statement: string) => {
    const client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await sql(`create database ${database}`)
  const mock = await startMockProvider()
  const gateways: ProcessGateway[] = []
  const stop = async () => {
    await Promise.all(gateways.map((g) => g.stop()))
    await mock.close()
    await sql(`drop database if exists ${database} with (force)`)
  }
  try {
    const dbUrl = new URL(DATABASE_URL as string)
    dbUrl.pathname = `/${database}`
    const env = {
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL,
      GOV_ADMIN_API_KEY: admin,
      OPENAI_BASE_URL: mock.openaiBaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
      OPENAI_API_KEY: 'sk-test-openai',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      // As startTestGateway's (a Redis hgetall timed out once at the 1 s production deadline).
      ...TEST_DEADLINES,
      ...options.env,
    }
    for (let i = 0; i < (options.count ?? 3); i++) gateways.push(await startProcessGateway(env))
  } catch (err) {
    await stop()
    throw err
  }
  const url = (i: number) => (gateways[i] as ProcessGateway).url
  return {
    mock,
    admin,
    url,
    async createAgent(pipelineId, agentId, overrides) {
      const created = await http(
        `${url(0)}/pipelines`,
        'POST',
        { pipeline_id: pipelineId, preset: 'standard', overrides },
        admin,
      )
      assert.equal(created.status, 201, JSON.stringify(created.body))
      const made = await http(
        `${url(1)}/agents`,
        'POST',
        { agent_id: agentId, pipeline_id: pipelineId },
        admin,
      )
      assert.equal(made.status, 201, JSON.stringify(made.body))
      return made.body.api_key as string
    },
    stop,
  }
}
