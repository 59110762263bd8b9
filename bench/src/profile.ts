/**
 * `npm run bench:profile`: gov with the `standard` preset (every step) under
 * `node --cpu-prof`, pinned to core 0, driven by the load worker on core 1 for
 * `--duration` seconds; then gov is stopped (the profile is written on exit)
 * and the samples taken during the load are summarised — self time by
 * package, function and file — into bench/results/profile-<time>.md.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PRESETS } from '@gov/host'
import { type CpuProfile, renderProfile, summariseProfile } from './cpu-profile.js'
import { parseFlags } from './flag-options.js'
import { logPath, startStandardGov } from './gov-process.js'
import type { LoadJob } from './load-worker.js'
import { commitLabel, loadLabel } from './run-info.js'
import { LOAD_CORE, runLoad } from './run-load.js'
import { SERVER_CORE, startServerProcess } from './server-process.js'
import { canPin } from './spawn-pinned.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..', '..', '..')
const resultsDir = join(here, '..', '..', 'results')
/** The profile's clock: µs of CLOCK_MONOTONIC, as V8's profiler stamps its samples. */
const nowMicros = () => Number(process.hrtime.bigint() / 1000n)

async function main(): Promise<void> {
  const options = parseFlags(process.argv.slice(2), {
    duration: 20,
    warmup: 3,
    connections: 32,
    top: 30,
    /** 1: every step of `standard` disabled (the empty pipeline of `npm run bench`). */
    empty: 0,
  })
  const target = options.empty
    ? 'empty pipeline (standard, every step disabled)'
    : '`standard` preset, every step'
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const profileDir = join(resultsDir, 'profiles', stamp)
  const logsDir = join(resultsDir, 'logs')
  await mkdir(profileDir, { recursive: true })
  await mkdir(logsDir, { recursive: true })
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const mock = await startServerProcess(
    'mock provider',
    join(here, 'mock-server.js'),
    { PATH: process.env.PATH ?? '' },
    logPath(resultsDir, 'mock'),
  )
  let window: [number, number]
  let requestsPerSecond: number
  let total: number
  let calls: number
  try {
    const gov = await startStandardGov(
      join(here, 'gov-server.js'),
      mock,
      logPath(resultsDir, 'gov-profiled'),
      ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
      {},
      options.empty
        ? {
            pipeline_id: 'bench-empty',
            preset: 'standard',
            overrides: Object.fromEntries(
              (PRESETS.standard?.steps ?? []).map((s) => [s.name, { disabled: true }]),
            ),
          }
        : undefined,
    )
    try {
      const job: LoadJob = {
        url: gov.url,
        headers: { authorization: `Bearer ${gov.agentKey}` },
        connections: options.connections,
        durationSeconds: options.duration,
        warmupSeconds: options.warmup,
        unloadedRequests: 0,
      }
      log(
        `profiling gov (${target}): ${options.warmup} s warm-up + ${options.duration} s × ${options.connections} connections`,
      )
      const from = nowMicros()
      const result = await runLoad(join(here, 'load-worker.js'), job)
      window = [from, nowMicros()]
      requestsPerSecond = result.loaded.requestsPerSecond
      total = result.loaded.total
      calls = result.loaded.total + result.warmup.requests
      const failures = result.loaded.non2xx + result.loaded.errors + result.loaded.timeouts
      if (failures)
        log(`warning: ${failures} calls without a 2xx answer: ${JSON.stringify(result.loaded.statusCodes)}`)
    } finally {
      await gov.stop()
    }
  } finally {
    await mock.stop()
  }
  const file = (await readdir(profileDir)).find((f) => f.endsWith('.cpuprofile'))
  if (!file) throw new Error(`gov wrote no .cpuprofile into ${profileDir}`)
  const profile = JSON.parse(await readFile(join(profileDir, file), 'utf8')) as CpuProfile
  const summary = summariseProfile(profile, root, { window, limit: options.top })
  const idle = summary.packages.find((p) => p.key === '(idle)')?.ms ?? 0
  const text = [
    '# gov CPU profile under load',
    '',
    `${new Date().toISOString()} · commit ${commitLabel()} · load average ${loadLabel()} · Node ${process.versions.node} · ${canPin() ? `gov on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'not pinned'}`,
    `gov ${target}; ${options.warmup} s warm-up + ${options.duration} s × ${options.connections} connections, unique ~1 KB prompts; ${requestsPerSecond.toFixed(0)} req/s, ${total} measured calls; only samples taken during the load are counted (warm-up included, start-up excluded); ${(((summary.totalMs - idle) * 1000) / Math.max(1, calls)).toFixed(0)} µs of busy (not idle) sampled time per call of the window (${calls} calls).`,
    `Raw profile: ${join(profileDir, file)} (open it in Chrome DevTools → Performance).`,
    '',
    renderProfile(summary),
  ].join('\n')
  const out = join(resultsDir, `profile-${stamp}.md`)
  await writeFile(out, text)
  process.stdout.write(`${text}\nwritten to ${out}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:profile FAILED: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
})
