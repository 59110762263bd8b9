/**
 * `npm run bench:memory`: does gov (`standard`, every step) keep memory per
 * call? gov runs pinned to core 0 with `--expose-gc`; this script drives
 * `--calls` calls over `--connections` connections and 64 rotating sessions
 * after `--warmup` calls, and `--samples` times asks gov (SIGUSR2, see
 * gov-server.ts) to collect garbage and report what it retains: resident size
 * and V8 heap used after a full GC, so garbage V8 has not collected yet does
 * not count. Flat means every sample within ±10 % of the first (after warm-up).
 *
 * `--snapshots 1` also writes a heap snapshot at every sample
 * (bench/results/heap/; keep `--samples` small), to compare in Chrome DevTools
 * (Memory → Comparison).
 * Storage as `bench:conversation`: GOV_BENCH_DATABASE_URL / GOV_BENCH_REDIS_URL,
 * or the in-memory store with GOV_MEMORY_AUDIT_MAX=1000.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { chatBody } from './chat-body.js'
import { flatness } from './conversation-model.js'
import { parseFlags } from './flag-options.js'
import { logPath, startStandardGov } from './gov-process.js'
import { buildPromptParts } from './prompts.js'
import { commitLabel, loadLabel, storageEnv, storageLabel } from './run-info.js'
import type { MemoryProbe } from './server-process.js'
import { startServerProcess } from './server-process.js'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, '..', '..', 'results')
const parts = buildPromptParts()
const log = (line: string) => process.stderr.write(`${line}\n`)
const mb = (b: number) => (b / 1024 / 1024).toFixed(1)

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2), {
    calls: 20_000,
    warmup: 5_000,
    samples: 10,
    connections: 8,
    snapshots: 0,
  })
  const heapDir = join(resultsDir, 'heap')
  await mkdir(join(resultsDir, 'logs'), { recursive: true })
  if (o.snapshots) await mkdir(heapDir, { recursive: true })
  const env = storageEnv()
  const mock = await startServerProcess(
    'mock provider',
    join(here, 'mock-server.js'),
    { PATH: process.env.PATH ?? '' },
    logPath(resultsDir, 'mock'),
  )
  const probes: { calls: number; probe: MemoryProbe; seconds: number }[] = []
  let n = 7_919
  try {
    const gov = await startStandardGov(
      join(here, 'gov-server.js'),
      mock,
      logPath(resultsDir, 'gov-memory'),
      ['--expose-gc'],
      { ...env, GOV_BENCH_MEMORY_PROBE: '1', ...(o.snapshots ? { GOV_BENCH_HEAP_DIR: heapDir } : {}) },
    )
    const pool = new Pool(gov.url, { connections: o.connections })
    const sessions = Array.from({ length: 64 }, () => randomUUID())
    let sent = 0
    const run = async (until: number) => {
      const worker = async () => {
        while (sent < until) {
          const i = sent++
          const res = await pool.request({
            method: 'POST',
            path: '/v1/chat/completions',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${gov.agentKey}`,
              'x-gov-session': sessions[i % sessions.length]!,
            },
            body: chatBody(parts, n++),
          })
          const text = await res.body.text()
          if (res.statusCode !== 200) throw new Error(`gov answered ${res.statusCode}: ${text.slice(0, 300)}`)
        }
      }
      await Promise.all(Array.from({ length: o.connections }, worker))
    }
    const started = performance.now()
    const probe = async () => {
      const p = await gov.probeMemory()
      probes.push({ calls: sent - o.warmup, probe: p, seconds: (performance.now() - started) / 1000 })
      log(
        `memory after ${sent - o.warmup} calls: rss ${mb(p.rss)} MB, heap used ${mb(p.heapUsed)} MB, external ${mb(p.external)} MB${p.snapshot ? `, snapshot ${p.snapshot}` : ''}`,
      )
    }
    try {
      log(`warm-up: ${o.warmup} calls`)
      await run(o.warmup)
      await probe()
      const every = Math.max(1, Math.floor(o.calls / o.samples))
      for (let s = 1; s <= o.samples; s++) {
        await run(o.warmup + Math.min(o.calls, s * every))
        await probe()
      }
    } finally {
      await pool.close()
      await gov.stop()
    }
  } finally {
    await mock.stop()
  }
  const rss = flatness(probes.map((p) => p.probe.rss))
  const heap = flatness(probes.map((p) => p.probe.heapUsed))
  const first = probes[0]!
  const last = probes.at(-1)!
  const perCall = (key: 'rss' | 'heapUsed') =>
    last.calls > 0 ? (last.probe[key] - first.probe[key]) / last.calls : 0
  const stamp = new Date().toISOString()
  const lines = [
    '# gov memory check',
    '',
    `${stamp} · commit ${commitLabel()} · load average ${loadLabel()} · Node ${process.versions.node} · gov \`standard\` (every step) on core 0 with --expose-gc · storage: ${storageLabel(env)} · ${o.warmup} warm-up calls, then ${last.calls} calls over ${o.connections} connections and 64 sessions, unique ~1 KB prompts`,
    '',
    'Each sample is taken after a full garbage collection in gov (what it retains, not garbage).',
    '',
    '| calls after warm-up | resident MB | V8 heap used MB | external MB | array buffers MB |',
    '|---:|---:|---:|---:|---:|',
    ...probes.map(
      (p) =>
        `| ${p.calls} | ${mb(p.probe.rss)} | ${mb(p.probe.heapUsed)} | ${mb(p.probe.external)} | ${mb(p.probe.arrayBuffers)} |`,
    ),
    '',
    `resident: first ${mb(rss.first)} MB, last ${mb(rss.last)} MB, drift ${(rss.maxDrift * 100).toFixed(1)} % → ${rss.flat ? 'flat (within ±10 %)' : 'NOT flat'}; ${perCall('rss').toFixed(0)} bytes per call`,
    '',
    `heap used: first ${mb(heap.first)} MB, last ${mb(heap.last)} MB, drift ${(heap.maxDrift * 100).toFixed(1)} % → ${heap.flat ? 'flat (within ±10 %)' : 'NOT flat'}; ${perCall('heapUsed').toFixed(0)} bytes per call`,
    '',
  ]
  const text = lines.join('\n')
  const out = join(resultsDir, `memory-${stamp.replace(/[:.]/g, '-')}.md`)
  await writeFile(out, text)
  process.stdout.write(`${text}\nwritten to ${out}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:memory FAILED: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
})
