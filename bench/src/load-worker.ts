/**
 * The load generator, in its own process pinned to its own core: warm-up,
 * unloaded latency (one request at a time), then the measured autocannon run.
 * Reads its job as JSON from argv[2]; prints one JSON result line.
 */
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'
import { Pool } from 'undici'
import { chatBody } from './chat-body.js'
import { buildPromptParts, distinctPrompts } from './prompts.js'

/** What the runner asks for. */
export interface LoadJob {
  url: string
  headers: Record<string, string>
  connections: number
  durationSeconds: number
  warmupSeconds: number
  unloadedRequests: number
}

/** What the worker reports. */
export interface LoadResult {
  warmup: { requests: number; non2xx: number; errors: number }
  unloaded: { requests: number; p50: number; p99: number; non2xx: number; firstFailure?: string }
  loaded: {
    requestsPerSecond: number
    total: number
    p50: number
    p99: number
    errors: number
    timeouts: number
    non2xx: number
    statusCodes: Record<string, number>
  }
  distinctPrompts: number
}

const PATH = '/v1/chat/completions'
const parts = buildPromptParts()
const distinct = distinctPrompts(parts)

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function runAutocannon(job: LoadJob, seconds: number, firstPrompt: number) {
  let n = firstPrompt
  return autocannon({
    url: job.url,
    connections: job.connections,
    duration: seconds,
    timeout: 30,
    headers: { 'content-type': 'application/json', ...job.headers },
    requests: [
      {
        method: 'POST',
        path: PATH,
        setupRequest: (request) => ({ ...request, body: chatBody(parts, n++) }),
      },
    ],
  })
}

async function runUnloaded(job: LoadJob, firstPrompt: number): Promise<LoadResult['unloaded']> {
  const pool = new Pool(job.url, { connections: 1 })
  const times: number[] = []
  let non2xx = 0
  let firstFailure: string | undefined
  try {
    for (let i = 0; i < job.unloadedRequests; i++) {
      const body = chatBody(parts, firstPrompt + i)
      const started = performance.now()
      const res = await pool.request({
        method: 'POST',
        path: PATH,
        headers: { 'content-type': 'application/json', ...job.headers },
        body,
      })
      const text = await res.body.text()
      times.push(performance.now() - started)
      if (res.statusCode < 200 || res.statusCode > 299) {
        non2xx++
        firstFailure ??= `HTTP ${res.statusCode}: ${text.slice(0, 300)}`
      }
    }
  } finally {
    await pool.close()
  }
  times.sort((a, b) => a - b)
  return {
    requests: times.length,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    non2xx,
    ...(firstFailure ? { firstFailure } : {}),
  }
}

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob
// Different prompt ranges per phase, so the measured run does not meet texts the warm-up already cached.
const warm =
  job.warmupSeconds > 0 ? await runAutocannon(job, job.warmupSeconds, Math.floor(distinct / 2)) : undefined
const unloaded = await runUnloaded(job, Math.floor(distinct / 4))
const loaded = await runAutocannon(job, job.durationSeconds, 0)
const statusCodes = Object.fromEntries(
  Object.entries(loaded.statusCodeStats).map(([code, s]) => [code, s.count]),
)
const result: LoadResult = {
  warmup: { requests: warm?.requests.total ?? 0, non2xx: warm?.non2xx ?? 0, errors: warm?.errors ?? 0 },
  unloaded,
  loaded: {
    requestsPerSecond: loaded.requests.average,
    total: loaded.requests.total,
    p50: loaded.latency.p50,
    p99: loaded.latency.p99,
    errors: loaded.errors,
    timeouts: loaded.timeouts,
    non2xx: loaded.non2xx,
    statusCodes,
  },
  distinctPrompts: distinct,
}
process.stdout.write(`${JSON.stringify(result)}\n`)
