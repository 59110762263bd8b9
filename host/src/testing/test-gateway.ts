/**
 * A gateway on port 0 in front of the mock provider, with helpers for the
 * admin API and for calls. Shared by the host tests, the end-to-end tests and
 * the benchmarks, so none of them copies set-up code.
 */
import type { StepPlugin } from '@gov/core'
import { PRESETS } from '../chain/presets.js'
import { type Gateway, type StartOptions, startGateway } from '../index.js'
import { fixtureSteps } from './fixture-steps.js'
import { type MockProvider, startMockProvider } from './mock-provider.js'

export const TEST_ADMIN_KEY = 'test-admin-key'

/** The answer of a helper call: status, headers and parsed body (JSON when it parses, else text). */
export interface CallResult {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  body: any
  text: string
}

export interface TestGateway {
  gateway: Gateway
  mock: MockProvider
  url: string
  /** Call the admin API with the admin key (or `key`). */
  admin(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; contentType?: string },
  ): Promise<CallResult>
  /** Create an agent (optionally on a pipeline) and return its key. */
  createAgent(agentId: string, pipelineId?: string): Promise<string>
  /** Create a pipeline; throws unless 201. */
  createPipeline(
    pipelineId: string,
    preset: string,
    overrides?: Record<string, unknown>,
    allowFlags?: string[],
  ): Promise<CallResult>
  /** POST a vendor endpoint with an agent key. */
  call(
    path: '/v1/chat/completions' | '/v1/messages',
    body: unknown,
    options?: { key?: string; headers?: Record<string, string>; raw?: string },
  ): Promise<CallResult>
  close(): Promise<void>
}

/** An OpenAI chat-completion body with one user message (and any extra fields). */
export function chatBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], ...extra }
}

/** An Anthropic messages body with one user message (and any extra fields). */
export function messagesBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    messages: [{ role: 'user', content: text }],
    ...extra,
  }
}

/** Overrides that switch off every step of `preset` and add `steps` (name → settings), in order. */
export function onlySteps(
  preset: string,
  steps: Record<string, Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const overrides: Record<string, Record<string, unknown>> = {}
  for (const step of PRESETS[preset]?.steps ?? []) overrides[step.name] = { disabled: true }
  return { ...overrides, ...steps }
}

async function toResult(res: Response): Promise<CallResult> {
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body, text }
}

/**
 * Deadlines of test gateways: a loaded CI machine can take longer than the
 * production ones (3 s for PostgreSQL, 1 s for a Redis command, connecting
 * included) to connect or commit; tests that exercise the deadlines set their own.
 */
export const TEST_DEADLINES = {
  GOV_DB_STATEMENT_TIMEOUT_MS: '15000',
  GOV_DB_ACQUIRE_TIMEOUT_MS: '15000',
  GOV_REDIS_COMMAND_TIMEOUT_MS: '10000',
} as const

/** Start a mock provider (unless given) and a gateway in front of it. */
export async function startTestGateway(
  options: {
    env?: NodeJS.ProcessEnv
    plugins?: StepPlugin[]
    mock?: MockProvider
    start?: Partial<StartOptions>
  } = {},
): Promise<TestGateway> {
  const mock = options.mock ?? (await startMockProvider())
  const env: NodeJS.ProcessEnv = {
    GOV_PORT: '0',
    GOV_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    GOV_ADMIN_API_KEY: TEST_ADMIN_KEY,
    OPENAI_BASE_URL: mock.openaiBaseUrl,
    ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
    OPENAI_API_KEY: 'sk-test-openai',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ...TEST_DEADLINES,
    ...options.env,
  }
  const gateway = await startGateway({
    env,
    plugins: options.plugins ?? fixtureSteps,
    ...options.start,
  }).catch(async (err) => {
    if (!options.mock) await mock.close()
    throw err
  })
  const url = gateway.url

  const admin: TestGateway['admin'] = async (method, path, body, opts = {}) => {
    const key = opts.key === undefined ? TEST_ADMIN_KEY : opts.key
    const headers: Record<string, string> = {}
    if (key !== null) headers.authorization = `Bearer ${key}`
    let payload: string | undefined
    if (body !== undefined) {
      headers['content-type'] = opts.contentType ?? 'application/json'
      payload = typeof body === 'string' ? body : JSON.stringify(body)
    }
    return toResult(await fetch(url + path, { method, headers, body: payload }))
  }

  return {
    gateway,
    mock,
    url,
    admin,
    async createAgent(agentId, pipelineId) {
      const res = await admin('POST', '/agents', {
        agent_id: agentId,
        ...(pipelineId ? { pipeline_id: pipelineId } : {}),
      })
      if (res.status !== 201) throw new Error(`create agent failed: ${res.status} ${res.text}`)
      return res.body.api_key as string
    },
    async createPipeline(pipelineId, preset, overrides = {}, allowFlags) {
      const res = await admin('POST', '/pipelines', {
        pipeline_id: pipelineId,
        preset,
        overrides,
        ...(allowFlags ? { allow_flags: allowFlags } : {}),
      })
      if (res.status !== 201) throw new Error(`create pipeline failed: ${res.status} ${res.text}`)
      return res
    },
    async call(path, body, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers }
      if (opts.key) headers.authorization = `Bearer ${opts.key}`
      return toResult(
        await fetch(url + path, { method: 'POST', headers, body: opts.raw ?? JSON.stringify(body) }),
      )
    },
    async close() {
      await gateway.close()
      if (!options.mock) await mock.close()
    },
  }
}
