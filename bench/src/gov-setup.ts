/** Admin API calls that prepare a benchmarked gov: a pipeline, an agent on it, and a wait for readiness. */
import { setTimeout as sleep } from 'node:timers/promises'
import { parseMetrics, type Sample } from './metrics-text.js'

async function admin(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (res.status < 200 || res.status > 299)
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`)
  return text ? JSON.parse(text) : undefined
}

/** A pipeline to benchmark. */
export interface BenchPipeline {
  pipeline_id: string
  preset: string
  overrides: Record<string, Record<string, unknown>>
}

/**
 * Create `pipeline`, create agent `bench` with `POST /agents`, assign the
 * pipeline to it, and return the agent's API key.
 */
export async function prepareAgent(base: string, adminKey: string, pipeline: BenchPipeline): Promise<string> {
  await admin(base, adminKey, 'POST', '/pipelines', pipeline)
  const agent = (await admin(base, adminKey, 'POST', '/agents', { agent_id: 'bench' })) as { api_key: string }
  await admin(base, adminKey, 'PUT', `/pipelines/${pipeline.pipeline_id}/assign/bench`)
  return agent.api_key
}

/** Wait until `/health/startup` answers 200 (step models loaded). */
export async function waitStarted(base: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    const res = await fetch(`${base}/health/startup`).catch(() => undefined)
    if (res?.status === 200) return
    last = res ? `${res.status} ${await res.text()}` : 'no answer'
    await sleep(200)
  }
  throw new Error(`gov at ${base} did not finish starting within ${timeoutMs} ms (last: ${last})`)
}

/** gov's `/metrics` (admin key), parsed. */
export async function scrapeMetrics(base: string, adminKey: string): Promise<Sample[]> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text.slice(0, 300)}`)
  return parseMetrics(text)
}
