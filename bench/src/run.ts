/**
 * `npm run bench`: gov against a bare pass-through proxy and the provider
 * called directly, side by side in one run. Every server runs in its own
 * process pinned to core 0, the load generator in another pinned to core 1.
 * A measurement, not a test: it fails only when a target answers non-2xx.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { PRESETS } from '@gov/host'
import { chatBody } from './chat-body.js'
import { type BenchPipeline, prepareAgent, scrapeMetrics, waitStarted } from './gov-setup.js'
import type { LoadJob } from './load-worker.js'
import { type Sample, total } from './metrics-text.js'
import { phaseRows, renderPhaseTable } from './phase-table.js'
import { buildPromptParts, distinctPrompts, promptText } from './prompts.js'
import { failuresOf, renderTable, type TargetResult } from './report.js'
import { commitLabel, loadLabel } from './run-info.js'
import { LOAD_CORE, runLoad } from './run-load.js'
import { parseRunOptions, type RunOptions } from './run-options.js'
import { SERVER_CORE, type ServerProcess, startServerProcess } from './server-process.js'
import { canPin } from './spawn-pinned.js'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, '..', '..', 'results')
const logsDir = join(resultsDir, 'logs')
const parts = buildPromptParts()
/** Only what the servers need: the caller's DATABASE_URL or GOV_PLUGINS must not change what is measured. */
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

interface Target {
  name: string
  description: string
  /** Start what is measured; returns its URL, the headers a call needs, what to stop afterwards and notes. */
  start(mock: ServerProcess, options: RunOptions): Promise<StartedTarget>
}

interface StartedTarget {
  url: string
  headers: Record<string, string>
  stop: () => Promise<void>
  notes: string[]
  /** gov only: its `/metrics` samples now, for the phase table. */
  scrape?: () => Promise<Sample[]>
}

const PROVIDER_KEY = { authorization: 'Bearer bench-provider-key' }

function govTarget(name: string, description: string, pipeline: BenchPipeline): Target {
  return {
    name,
    description,
    async start(mock, options) {
      const adminKey = `bench_admin_${randomBytes(12).toString('hex')}`
      const gov = await startServerProcess(
        name,
        join(here, 'gov-server.js'),
        {
          ...BASE_ENV,
          GOV_PORT: '0',
          GOV_HOST: '127.0.0.1',
          GOV_ADMIN_API_KEY: adminKey,
          OPENAI_BASE_URL: String(mock.info.openaiBaseUrl),
          OPENAI_API_KEY: 'bench-provider-key',
          LOG_LEVEL: options.logLevel,
        },
        join(logsDir, `${name}.log`),
      )
      try {
        await waitStarted(gov.info.url)
        const key = await prepareAgent(gov.info.url, adminKey, pipeline)
        const view = (await (
          await fetch(`${gov.info.url}/pipelines/${pipeline.pipeline_id}`, {
            headers: { authorization: `Bearer ${adminKey}` },
          })
        ).json()) as { steps: { name: string; status: string }[] }
        const active = view.steps.filter((s) => s.status === 'active').map((s) => s.name)
        const missing = view.steps.filter((s) => s.status === 'missing').map((s) => s.name)
        const notes = [
          `${name}: ${active.length} active steps${active.length ? ` (${active.join(', ')})` : ''}${missing.length ? `; not installed, skipped: ${missing.join(', ')}` : ''}`,
        ]
        return {
          url: gov.info.url,
          headers: { authorization: `Bearer ${key}` },
          stop: () => gov.stop(),
          notes,
          scrape: () => scrapeMetrics(gov.info.url, adminKey),
        }
      } catch (err) {
        await gov.stop()
        throw err
      }
    },
  }
}

const TARGETS: Record<string, Target> = {
  direct: {
    name: 'direct',
    description: 'the mock provider called directly',
    async start(mock) {
      return { url: mock.info.url, headers: PROVIDER_KEY, stop: async () => {}, notes: [] }
    },
  },
  bare: {
    name: 'bare proxy',
    description: 'node:http + undici Pool pass-through, no parsing',
    async start(mock) {
      const proxy = await startServerProcess(
        'bare proxy',
        join(here, 'bare-proxy.js'),
        { ...BASE_ENV, BENCH_UPSTREAM: mock.info.url },
        join(logsDir, 'bare-proxy.log'),
      )
      return { url: proxy.info.url, headers: PROVIDER_KEY, stop: () => proxy.stop(), notes: [] }
    },
  },
  'gov-empty': govTarget('gov (empty pipeline)', 'gov with every step of the standard preset disabled', {
    pipeline_id: 'bench-empty',
    preset: 'standard',
    overrides: Object.fromEntries((PRESETS.standard?.steps ?? []).map((s) => [s.name, { disabled: true }])),
  }),
  'gov-standard': govTarget('gov (standard)', 'gov with the standard preset', {
    pipeline_id: 'bench-standard',
    preset: 'standard',
    overrides: {},
  }),
}

/** One request before the load: it must be 2xx, and the echo should come back unchanged. */
async function preflight(name: string, url: string, headers: Record<string, string>): Promise<string[]> {
  const n = 7
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: chatBody(parts, n),
  })
  const text = await res.text()
  if (res.status !== 200)
    throw new Error(`${name}: the first call answered ${res.status}: ${text.slice(0, 500)}`)
  const content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
    ?.message?.content
  if (typeof content !== 'string')
    throw new Error(`${name}: the first call's answer has no message content: ${text.slice(0, 300)}`)
  return content === promptText(parts, n)
    ? []
    : [`${name}: the echoed answer differs from the prompt (a step changed the text)`]
}

/** Scrape until the count of finished calls stops moving (at most ~10 s). */
async function settled(scrape: () => Promise<Sample[]>): Promise<Sample[]> {
  let last = await scrape()
  for (let i = 0; i < 20; i++) {
    await sleep(500)
    const next = await scrape()
    const calls = (s: Sample[]) => total(s, 'gov_request_duration_seconds_count')
    if (calls(next) === calls(last)) return next
    last = next
  }
  return last
}

const PHASE_NOTE =
  'Phase tables: step rows and upstream are wall time the host measures around each hook (under load they include event-loop waits for other calls); "walk" rows are gov_phase_duration_seconds per phase, and "besides the hooks" is the time of a step phase its hooks do not account for (the runner, event-loop waits); only the process CPU row is CPU time. µs per call = total ÷ gateway calls, so hook rows add up to the step part of a call.'

async function main(): Promise<number> {
  const options = parseRunOptions(process.argv.slice(2))
  await mkdir(logsDir, { recursive: true })
  const pinned = canPin()
  const log = (line: string) => process.stderr.write(`${line}\n`)
  log(
    pinned
      ? `servers pinned to core ${SERVER_CORE}, load generator to core ${LOAD_CORE} (taskset)`
      : 'taskset not available: servers and load generator share all cores',
  )
  const mock = await startServerProcess(
    'mock provider',
    join(here, 'mock-server.js'),
    BASE_ENV,
    join(logsDir, 'mock.log'),
  )
  const results: TargetResult[] = []
  const notes: string[] = []
  const phaseTables: string[] = []
  try {
    for (const key of options.targets) {
      const target = TARGETS[key]!
      log(`${target.name}: starting`)
      const started = await target.start(mock, options)
      try {
        notes.push(...started.notes, ...(await preflight(target.name, started.url, started.headers)))
        log(
          `${target.name}: warm-up ${options.warmup} s, ${options.unloaded} sequential requests, then ${options.duration} s × ${options.connections} connections`,
        )
        const job: LoadJob = {
          url: started.url,
          headers: started.headers,
          connections: options.connections,
          durationSeconds: options.duration,
          warmupSeconds: options.warmup,
          unloadedRequests: options.unloaded,
        }
        const before = await started.scrape?.()
        const result = await runLoad(join(here, 'load-worker.js'), job)
        // Calls autocannon abandoned at the end are still in flight in gov: wait until they finish.
        const after = started.scrape ? await settled(started.scrape) : undefined
        if (before && after)
          phaseTables.push(
            `### ${target.name}: per phase and step (warm-up + unloaded + loaded calls)`,
            '',
            renderPhaseTable(phaseRows(before, after)),
            '',
          )
        results.push({ name: target.name, description: target.description, result })
        log(
          `${target.name}: ${result.loaded.requestsPerSecond.toFixed(0)} req/s, p50 ${result.loaded.p50} ms`,
        )
      } finally {
        await started.stop()
      }
    }
  } finally {
    await mock.stop()
  }

  const table = renderTable(results)
  const failed = results.filter((t) => failuresOf(t.result) > 0)
  const cpu = cpus()
  const lines = [
    '# gov load benchmark',
    '',
    `${new Date().toISOString()} · commit ${commitLabel()} · load average ${loadLabel()} · Node ${process.versions.node} · ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} · ${pinned ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'not pinned'}`,
    `${options.duration} s × ${options.connections} connections per target after ${options.warmup} s warm-up; unloaded: ${options.unloaded} sequential requests; non-streaming chat completions, ~1 KB user prompt, ${distinctPrompts(parts)} distinct prompts; gov LOG_LEVEL=${options.logLevel}`,
    '',
    table,
    '',
    ...phaseTables,
    ...(phaseTables.length ? [PHASE_NOTE, ''] : []),
    ...results.map((t) => `- ${t.name}: ${t.description}; ${t.result.loaded.total} requests measured`),
    ...notes.map((n) => `- ${n}`),
    ...failed.map(
      (t) =>
        `- FAILED ${t.name}: ${failuresOf(t.result)} requests without a 2xx answer; status codes ${JSON.stringify(t.result.loaded.statusCodes)}${t.result.unloaded.firstFailure ? `; first: ${t.result.unloaded.firstFailure}` : ''}`,
    ),
  ]
  const text = `${lines.join('\n')}\n`
  await writeFile(join(resultsDir, 'latest.md'), text)
  process.stdout.write(`\n${text}\nwritten to ${join(resultsDir, 'latest.md')}\n`)
  if (failed.length) {
    process.stderr.write(
      `\nbench FAILED: ${failed.map((t) => t.name).join(', ')} answered non-2xx or errored (see above)\n`,
    )
    return 1
  }
  return 0
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`bench FAILED: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
