/**
 * The load generator, in its own process pinned to its own core. Two modes:
 * - one job (`node load-worker.js '<LoadJob JSON>'`): warm-up, unloaded latency
 *   (one request at a time), then the measured autocannon run; prints one JSON
 *   result line and exits;
 * - `--serve`: reads {@link WorkerJob}s as JSON lines on stdin and answers each
 *   with one JSON line on stdout (`npm run bench`'s interleaved rounds: one
 *   process, started once, so a round pays no process start-up).
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

/** A job for the `--serve` mode. */
export type WorkerJob =
  | {
      kind: 'load'
      url: string
      headers: Record<string, string>
      connections: number
      seconds: number
      /** Index of the first prompt; each request takes the next. */
      firstPrompt: number
    }
  | { kind: 'unloaded'; url: string; headers: Record<string, string>; requests: number; firstPrompt: number }

/** The answer to a `load` job: one autocannon run. */
export interface LoadRun {
  /** Answers received (any status). */
  requests: number
  /** Requests written (answered or cut off at the end). */
  sent: number
  /** Seconds the run lasted (autocannon's clock, 10 ms steps). */
  seconds: number
  /** requests ÷ seconds. */
  requestsPerSecond: number
  p50: number
  p99: number
  errors: number
  timeouts: number
  non2xx: number
  statusCodes: Record<string, number>
}

const PATH = '/v1/chat/completions'
const parts = buildPromptParts()
const distinct = distinctPrompts(parts)

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function runAutocannon(
  job: Pick<LoadJob, 'url' | 'headers' | 'connections'>,
  seconds: number,
  firstPrompt: number,
  /** autocannon stops at the first sample tick after `seconds`; its requests.average is per tick. */
  sampleMs = 1000,
) {
  let n = firstPrompt
  return autocannon({
    url: job.url,
    connections: job.connections,
    duration: seconds,
    sampleInt: sampleMs,
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

async function runUnloaded(
  job: Pick<LoadJob, 'url' | 'headers' | 'unloadedRequests'>,
  firstPrompt: number,
): Promise<LoadResult['unloaded']> {
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

function statusCodesOf(r: Awaited<ReturnType<typeof autocannon>>): Record<string, number> {
  return Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]))
}

async function runOnce(job: LoadJob): Promise<LoadResult> {
  // Different prompt ranges per phase, so the measured run does not meet texts the warm-up already cached.
  const warm =
    job.warmupSeconds > 0 ? await runAutocannon(job, job.warmupSeconds, Math.floor(distinct / 2)) : undefined
  const unloaded = await runUnloaded(job, Math.floor(distinct / 4))
  const loaded = await runAutocannon(job, job.durationSeconds, 0)
  return {
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
      statusCodes: statusCodesOf(loaded),
    },
    distinctPrompts: distinct,
  }
}

async function runJob(job: WorkerJob): Promise<LoadRun | LoadResult['unloaded']> {
  if (job.kind === 'unloaded')
    return runUnloaded({ ...job, unloadedRequests: job.requests }, job.firstPrompt % distinct)
  // Ticks of 100 ms, so a run lasts its seconds to 0.1 s, not to the next whole second (req/s here is total ÷ duration).
  const r = await runAutocannon(job, job.seconds, job.firstPrompt % distinct, 100)
  return {
    requests: r.requests.total,
    sent: r.requests.sent,
    seconds: r.duration,
    requestsPerSecond: r.duration > 0 ? r.requests.total / r.duration : Number.NaN,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes: statusCodesOf(r),
  }
}

async function serve(): Promise<void> {
  let buffered = ''
  process.stdin.setEncoding('utf8')
  for await (const chunk of process.stdin) {
    buffered += chunk as string
    let newline = buffered.indexOf('\n')
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim()
      buffered = buffered.slice(newline + 1)
      if (line) {
        const answer = await runJob(JSON.parse(line) as WorkerJob).then(
          (result) => ({ result }),
          (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
        )
        process.stdout.write(`${JSON.stringify(answer)}\n`)
      }
      newline = buffered.indexOf('\n')
    }
  }
}

if (process.argv[2] === '--serve') await serve()
else {
  const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob
  process.stdout.write(`${JSON.stringify(await runOnce(job))}\n`)
}
