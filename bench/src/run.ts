/**
 * `npm run bench`: gov against a bare pass-through proxy and the provider
 * called directly, side by side in one run. Every server runs in its own
 * process pinned to core 0, the load generator in another pinned to core 1.
 * All servers start once and stay up; after each target's warm-up and
 * unloaded latency, the targets are measured in short interleaved rounds
 * (direct, bare, gov-empty, gov-standard, direct, …), each run compared with
 * the bare proxy's runs just before and after it, so a machine shared with
 * other work moves both sides of a ratio alike (src/rounds.ts, src/report.ts).
 * A measurement, not a test: it fails only when a target answers non-2xx.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { PRESETS } from '@gov/host'
import { chatBody } from './chat-body.js'
import { type BenchPipeline, prepareAgent, scrapeMetrics, waitStarted } from './gov-setup.js'
import { type Sample, total } from './metrics-text.js'
import { phaseRows, renderPhaseTable } from './phase-table.js'
import { type CoreTimes, coreDelta, coreTimes, processCpuSeconds } from './proc-stat.js'
import { buildPromptParts, distinctPrompts, promptText } from './prompts.js'
import {
  BARE,
  cpuPerCall,
  DIRECT,
  type Measurement,
  NOISE_LIMITS,
  noiseFlags,
  ratioCell,
  renderCpuTable,
  renderRoundsTable,
  renderThroughputTable,
  renderUnloadedTable,
  runFailures,
  summarize,
  type TargetSetup,
} from './report.js'
import { commitLabel, loadLabel } from './run-info.js'
import { LOAD_CORE, startLoadWorker } from './run-load.js'
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
  /** The target's own server process, for its CPU time (undefined for direct: the mock is the target). */
  pid?: number | undefined
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
          pid: gov.pid,
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
    name: DIRECT,
    description: 'the mock provider called directly',
    async start(mock) {
      return { url: mock.info.url, headers: PROVIDER_KEY, stop: async () => {}, notes: [] }
    },
  },
  bare: {
    name: BARE,
    description: 'node:http + undici Pool pass-through, no parsing',
    async start(mock) {
      const proxy = await startServerProcess(
        'bare proxy',
        join(here, 'bare-proxy.js'),
        { ...BASE_ENV, BENCH_UPSTREAM: mock.info.url },
        join(logsDir, 'bare-proxy.log'),
      )
      return {
        url: proxy.info.url,
        headers: PROVIDER_KEY,
        stop: () => proxy.stop(),
        notes: [],
        pid: proxy.pid,
      }
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

/** A started target, with what the run needs to measure it. */
interface Running {
  key: string
  target: Target
  started: StartedTarget
  /** The process whose CPU is the target's (the mock's for `direct`). */
  pid: number | undefined
  /** Index of the next prompt its rounds send. */
  nextPrompt: number
  before?: Sample[]
}

/** Start every target at once (they load models concurrently); if one fails, stop the others and throw. */
async function startAll(
  keys: readonly string[],
  mock: ServerProcess,
  options: RunOptions,
): Promise<Running[]> {
  const settledStarts = await Promise.allSettled(
    keys.map(async (key): Promise<Running> => {
      const target = TARGETS[key]!
      const started = await target.start(mock, options)
      return { key, target, started, pid: started.pid ?? mock.pid, nextPrompt: 0 }
    }),
  )
  const running = settledStarts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const failed = settledStarts.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) {
    await Promise.all(running.map((r) => r.started.stop()))
    throw failed.reason
  }
  return running
}

/** The machine's state at one moment: load average and /proc/stat for all cores and the servers' core. */
function machineNow() {
  return { load: loadLabel(), all: coreTimes(), server: coreTimes(SERVER_CORE) }
}

function shareLabel(before: CoreTimes | undefined, after: CoreTimes | undefined): string {
  if (!before || !after) return 'n/a (no /proc/stat)'
  const d = coreDelta(before, after)
  const all = d.busy + d.idle + d.steal
  const p = (x: number) => `${all > 0 ? Math.round((x / all) * 100) : 0} %`
  return `busy ${p(d.busy)}, idle ${p(d.idle)}, steal ${p(d.steal)}`
}

async function main(): Promise<number> {
  const options = parseRunOptions(process.argv.slice(2))
  await mkdir(logsDir, { recursive: true })
  const pinned = canPin()
  const t0 = performance.now()
  const log = (line: string) =>
    process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}\n`)
  log(
    pinned
      ? `servers pinned to core ${SERVER_CORE}, load generator to core ${LOAD_CORE} (taskset)`
      : 'taskset not available: servers and load generator share all cores',
  )
  const startMachine = machineNow()
  const mock = await startServerProcess(
    'mock provider',
    join(here, 'mock-server.js'),
    BASE_ENV,
    join(logsDir, 'mock.log'),
  )
  const setups: TargetSetup[] = []
  const sequence: Measurement[] = []
  const notes: string[] = []
  const phaseTables: string[] = []
  let roundsMachine:
    | { before: ReturnType<typeof machineNow>; after: ReturnType<typeof machineNow> }
    | undefined
  try {
    log(`starting ${options.targets.join(', ')}`)
    const running = await startAll(options.targets, mock, options)
    log('all targets up')
    const worker = startLoadWorker(join(here, 'load-worker.js'))
    try {
      // Each target alone first: preflight, warm-up, unloaded latency.
      for (const r of running) {
        const { target, started } = r
        notes.push(...started.notes, ...(await preflight(target.name, started.url, started.headers)))
        r.before = await started.scrape?.()
        const common = { url: started.url, headers: started.headers }
        // Warm up for --warmup seconds, then on until --warmup-calls answers (JIT, caches, pools), at most --warmup-max seconds.
        const warm = { requests: 0, non2xx: 0, errors: 0 }
        let prompt = Math.floor(distinctPrompts(parts) / 2)
        const warmStart = performance.now()
        const warmed = () => (performance.now() - warmStart) / 1000
        for (let chunk = 0; ; chunk++) {
          const seconds = chunk === 0 ? options.warmup : Math.min(1, options.warmupMax - warmed())
          if (chunk > 0 && (warm.requests >= options.warmupCalls || seconds < 0.1)) break
          if (seconds <= 0) continue
          const w = await worker.run({
            kind: 'load',
            ...common,
            connections: options.connections,
            seconds,
            firstPrompt: prompt,
          })
          prompt += w.sent
          warm.requests += w.requests
          warm.non2xx += w.non2xx
          warm.errors += w.errors + w.timeouts
        }
        log(
          `${target.name}: warmed up with ${warm.requests} calls in ${warmed().toFixed(1)} s; ${options.unloaded} sequential requests`,
        )
        const unloaded = await worker.run({
          kind: 'unloaded',
          ...common,
          requests: options.unloaded,
          firstPrompt: Math.floor(distinctPrompts(parts) / 4),
        })
        setups.push({ name: target.name, description: target.description, warmup: warm, unloaded })
      }
      // Then the rounds: every target once per round, in turn, all servers up.
      log(
        `${options.rounds} rounds × ${running.length} targets: ${options.roundWarmup} s warm-up + ${options.roundSeconds} s measured × ${options.connections} connections each`,
      )
      const before = machineNow()
      for (let round = 1; round <= options.rounds; round++) {
        for (const r of running) {
          const job = {
            kind: 'load' as const,
            url: r.started.url,
            headers: r.started.headers,
            connections: options.connections,
          }
          const warmup =
            options.roundWarmup > 0
              ? await worker.run({ ...job, seconds: options.roundWarmup, firstPrompt: r.nextPrompt })
              : undefined
          r.nextPrompt += warmup?.sent ?? 0
          const isDirect = r.key === 'direct'
          const read = () => ({
            at: performance.now(),
            cpu: processCpuSeconds(r.pid),
            mock: isDirect ? undefined : processCpuSeconds(mock.pid),
            load: processCpuSeconds(worker.pid),
            core: coreTimes(SERVER_CORE),
          })
          const a = read()
          const run = await worker.run({ ...job, seconds: options.roundSeconds, firstPrompt: r.nextPrompt })
          const b = read()
          r.nextPrompt += run.sent
          const diff = (x: number | undefined, y: number | undefined) =>
            x !== undefined && y !== undefined ? y - x : undefined
          const m: Measurement = {
            target: r.target.name,
            round,
            run,
            ...(warmup ? { warmup } : {}),
            wallSeconds: (b.at - a.at) / 1000,
            ...optional('cpu', diff(a.cpu, b.cpu)),
            ...optional('mockCpu', diff(a.mock, b.mock)),
            ...optional('loadCpu', diff(a.load, b.load)),
            ...(a.core && b.core ? { core: coreDelta(a.core, b.core) } : {}),
          }
          sequence.push(m)
          const flags = noiseFlags(m)
          log(
            `round ${round} ${r.target.name}: ${run.requestsPerSecond.toFixed(0)} req/s, ${cpuPerCall(m).toFixed(0)} µs CPU per call${flags.length ? ` [${flags.join('; ')}]` : ''}`,
          )
        }
      }
      roundsMachine = { before, after: machineNow() }
      log('rounds done')
      for (const r of running) {
        if (!r.before || !r.started.scrape) continue
        // Calls autocannon abandoned at the end are still in flight in gov: wait until they finish.
        const after = await settled(r.started.scrape)
        phaseTables.push(
          `### ${r.target.name}: per phase and step (warm-up, unloaded and all rounds)`,
          '',
          renderPhaseTable(phaseRows(r.before, after)),
          '',
        )
      }
    } finally {
      await worker.stop()
      await Promise.all(running.map((r) => r.started.stop()))
    }
  } finally {
    await mock.stop()
  }
  const endMachine = machineNow()

  const summaries = summarize(sequence)
  const failed = [
    ...setups
      .filter((s) => s.warmup.non2xx + s.warmup.errors + s.unloaded.non2xx > 0)
      .map(
        (s) =>
          `- FAILED ${s.name} before the rounds: warm-up ${s.warmup.non2xx} non-2xx and ${s.warmup.errors} errors, unloaded ${s.unloaded.non2xx} non-2xx${s.unloaded.firstFailure ? `; first: ${s.unloaded.firstFailure}` : ''}`,
      ),
    ...sequence
      .filter((m) => runFailures(m.run) + runFailures(m.warmup) > 0)
      .map(
        (m) =>
          `- FAILED ${m.target} round ${m.round}: ${runFailures(m.run) + runFailures(m.warmup)} requests without a 2xx answer; status codes ${JSON.stringify(m.run.statusCodes)}`,
      ),
  ]
  const flagged = sequence.filter((m) => noiseFlags(m).length > 0).length
  const headline = summaries
    .filter((s) => s.name !== BARE && s.name !== DIRECT && s.rpsVsBare.n > 0)
    .map(
      (s) =>
        `- **${s.name}**: req/s **${ratioCell(s.rpsVsBare)}** the bare proxy's (median of ${s.rpsVsBare.n} paired rounds, min–max); process CPU per call **${ratioCell(s.cpuVsBare)}** the bare proxy's; req/s implied by core CPU per call ${ratioCell(s.cpuImpliedVsBare)}`,
    )
  const cpu = cpus()
  const lines = [
    '# gov load benchmark',
    '',
    `${new Date().toISOString()} · commit ${commitLabel()} · Node ${process.versions.node} · ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} · ${pinned ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'not pinned'}`,
    `${options.rounds} interleaved rounds; per round and target ${options.roundWarmup} s warm-up + ${options.roundSeconds} s measured × ${options.connections} connections (${options.duration} s measured per target in all), after a warm-up per target (${options.warmup} s, then on to ${options.warmupCalls} calls, at most ${options.warmupMax} s) and ${options.unloaded} sequential requests (unloaded); non-streaming chat completions, ~1 KB user prompt, ${distinctPrompts(parts)} distinct prompts; gov LOG_LEVEL=${options.logLevel}`,
    `Noise: load average ${startMachine.load} at start, ${endMachine.load} at end; during the rounds all cores ${shareLabel(roundsMachine?.before.all, roundsMachine?.after.all)}, server core ${SERVER_CORE} ${shareLabel(roundsMachine?.before.server, roundsMachine?.after.server)}; ${flagged} of ${sequence.length} runs flagged (see Rounds).`,
    '',
    ...headline,
    '',
    '## Throughput (interleaved rounds)',
    '',
    renderThroughputTable(summaries),
    '',
    THROUGHPUT_NOTE,
    '',
    '## Process CPU per call (same rounds, /proc/<pid>/stat)',
    '',
    renderCpuTable(summaries),
    '',
    CPU_NOTE,
    '',
    '## Unloaded latency',
    '',
    renderUnloadedTable(setups),
    '',
    ...phaseTables,
    ...(phaseTables.length ? [PHASE_NOTE, ''] : []),
    '## Rounds',
    '',
    renderRoundsTable(sequence),
    '',
    ROUNDS_NOTE,
    '',
    ...summaries.map(
      (s) =>
        `- ${s.name}: ${setups.find((t) => t.name === s.name)?.description ?? ''}; ${s.requests} requests measured`,
    ),
    ...notes.map((n) => `- ${n}`),
    ...failed,
  ]
  const text = `${lines.join('\n')}\n`
  await writeFile(join(resultsDir, 'latest.md'), text)
  process.stdout.write(`\n${text}\nwritten to ${join(resultsDir, 'latest.md')}\n`)
  if (failed.length) {
    process.stderr.write(`\nbench FAILED: requests answered non-2xx or errored (see above)\n`)
    return 1
  }
  return 0
}

/** `{ [key]: value }` when value is defined, else `{}` (exactOptionalPropertyTypes). */
function optional<K extends string>(key: K, value: number | undefined): { [k in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [k in K]: number })
}

const THROUGHPUT_NOTE = `req/s is answers ÷ seconds of each measured run; the table gives the median over the rounds and the range. "vs bare" is paired: each run of a target is divided by the mean of the bare proxy's runs just before and just after it (minutes apart would be a different machine here), and the table gives the median of those per-round ratios with their min–max. p50 / p99 ms: autocannon's latency under load, median over the rounds.`

const CPU_NOTE = `Process CPU is user + system time of the target's own process (all its threads) from /proc/<pid>/stat over each measured run, ÷ answers in that run (for direct, the mock's). It moves much less than req/s when other processes take the core. "CPU per call vs bare" is paired like req/s (> 1×: the target spends more per call). "core CPU (+ mock)" adds the mock provider's CPU per call, which shares the core; the bare proxy's core CPU per call ÷ the target's is the req/s ratio the two would have with the core to themselves ("implied").`

const ROUNDS_NOTE = `Core shares of the servers' core during each run from /proc/stat: ours = target + mock, others = everything else scheduled there, idle, steal (hypervisor). Flags: another process took ≥ ${NOISE_LIMITS.others * 100} % of the core, steal ≥ ${NOISE_LIMITS.steal * 100} %, the core ≥ ${NOISE_LIMITS.idle * 100} % idle (the target was not the limit), the load generator busy ≥ ${NOISE_LIMITS.generatorBusy * 100} % of its run (it may have been the limit; usual for direct), failed requests. Flagged runs stay in the medians; read their ratios with care.`

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`bench FAILED: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
