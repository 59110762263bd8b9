/**
 * `npm run bench:conversation`: two checks of gov `standard` (every step),
 * pinned to core 0, driven from this process.
 *
 * 1. Turn cost: a 50-turn conversation (each turn resends the whole history,
 *    as chat clients do) against 1-turn calls. Batches alternate — one
 *    conversation, then as many 1-turn calls — so the machine's changing load
 *    hits both alike. gov's own CPU (process CPU from `/metrics`) per call is
 *    compared; wall time per call is shown too. Target: ≤ 1.2×.
 * 2. Memory: resident size sampled from `/metrics` over `--rss-calls` calls
 *    after `--rss-warmup` calls; flat means every sample within ±10 % of the
 *    first. The default is short; `--rss-calls 200000` is the full check.
 *
 * Storage: PostgreSQL and Redis when GOV_BENCH_DATABASE_URL / GOV_BENCH_REDIS_URL
 * are set (as in production); otherwise the in-memory store, which keeps the
 * newest GOV_MEMORY_AUDIT_MAX audit records by design — set to 1 000 here, so
 * the warm-up fills it and the RSS check sees growth beyond that bound only.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { chatBody } from './chat-body.js'
import { conversationBody, flatness } from './conversation-model.js'
import { parseFlags } from './flag-options.js'
import { type GovProcess, logPath, startStandardGov } from './gov-process.js'
import { total } from './metrics-text.js'
import { buildPromptParts, distinctPrompts } from './prompts.js'
import { commitLabel, loadLabel, storageEnv, storageLabel } from './run-info.js'
import { startServerProcess } from './server-process.js'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, '..', '..', 'results')
const parts = buildPromptParts()
const CPU = 'gov_process_process_cpu_seconds_total'
const RSS = 'gov_process_process_resident_memory_bytes'
const HEAP = 'gov_process_nodejs_heap_size_used_bytes'
const log = (line: string) => process.stderr.write(`${line}\n`)

/** One call; returns the answer's text. A non-2xx answer stops the run: a refused call measures nothing. */
async function call(pool: Pool, gov: GovProcess, body: string, session: string): Promise<string> {
  const res = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${gov.agentKey}`,
      'x-gov-session': session,
    },
    body,
  })
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`gov answered ${res.statusCode}: ${text.slice(0, 300)}`)
  const content = (JSON.parse(text) as { choices?: { message?: { content?: string } }[] }).choices?.[0]
    ?.message?.content
  return content ?? ''
}

async function cpuSeconds(gov: GovProcess): Promise<number> {
  return total(await gov.scrape(), CPU)
}

interface Cost {
  cpuSeconds: number
  wallMs: number
  calls: number
}

async function turnCosts(
  gov: GovProcess,
  pool: Pool,
  turns: number,
  conversations: number,
  next: () => number,
) {
  const conv: Cost = { cpuSeconds: 0, wallMs: 0, calls: 0 }
  const single: Cost = { cpuSeconds: 0, wallMs: 0, calls: 0 }
  const lastTurns: number[] = []
  const singles: number[] = []
  for (let c = 0; c < conversations; c++) {
    const first = next()
    for (let i = 1; i < turns; i++) next()
    const session = randomUUID()
    const answers: string[] = []
    let cpu = await cpuSeconds(gov)
    for (let t = 0; t < turns; t++) {
      const started = performance.now()
      answers.push(await call(pool, gov, conversationBody(parts, first, answers), session))
      const ms = performance.now() - started
      conv.wallMs += ms
      if (t >= turns - 10) lastTurns.push(ms)
    }
    conv.cpuSeconds += (await cpuSeconds(gov)) - cpu
    conv.calls += turns
    cpu = await cpuSeconds(gov)
    for (let t = 0; t < turns; t++) {
      const started = performance.now()
      await call(pool, gov, chatBody(parts, next()), randomUUID())
      const ms = performance.now() - started
      single.wallMs += ms
      singles.push(ms)
    }
    single.cpuSeconds += (await cpuSeconds(gov)) - cpu
    single.calls += turns
    log(`conversation ${c + 1}/${conversations} done`)
  }
  return { conv, single, lastTurns, singles }
}

async function rssRun(
  gov: GovProcess,
  options: { calls: number; warmup: number; samples: number; connections: number },
  next: () => number,
) {
  const pool = new Pool(gov.url, { connections: options.connections })
  const sessions = Array.from({ length: 64 }, () => randomUUID())
  const rss: number[] = []
  const heap: number[] = []
  let sent = 0
  const run = async (count: number) => {
    const workers = Array.from({ length: options.connections }, async () => {
      while (sent < count) {
        const n = sent++
        await call(pool, gov, chatBody(parts, next()), sessions[n % sessions.length]!)
      }
    })
    await Promise.all(workers)
  }
  try {
    await run(options.warmup)
    const every = Math.max(1, Math.floor(options.calls / options.samples))
    for (let s = 0; s <= options.samples; s++) {
      const samples = await gov.scrape()
      rss.push(total(samples, RSS))
      heap.push(total(samples, HEAP))
      if (s === options.samples) break
      await run(options.warmup + (s + 1) * every)
      if (s % 5 === 4) log(`rss: ${sent - options.warmup} of ${options.calls} calls`)
    }
  } finally {
    await pool.close()
  }
  return { rss, heap, calls: sent - options.warmup }
}

const fixed = (n: number, d = 2) => n.toFixed(d)
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`

async function main(): Promise<void> {
  const o = parseFlags(process.argv.slice(2), {
    turns: 50,
    conversations: 4,
    'rss-calls': 20_000,
    'rss-warmup': 2_000,
    'rss-samples': 20,
    connections: 8,
  })
  await mkdir(join(resultsDir, 'logs'), { recursive: true })
  const mock = await startServerProcess(
    'mock provider',
    join(here, 'mock-server.js'),
    { PATH: process.env.PATH ?? '' },
    logPath(resultsDir, 'mock'),
  )
  let n = Math.floor(distinctPrompts(parts) / 3)
  const next = () => n++
  const lines: string[] = []
  try {
    const gov = await startStandardGov(
      join(here, 'gov-server.js'),
      mock,
      logPath(resultsDir, 'gov-conversation'),
      [],
      storageEnv(),
    )
    try {
      const pool = new Pool(gov.url, { connections: 1 })
      try {
        // Warm the JIT and the step caches on other texts first.
        for (let i = 0; i < 100; i++) await call(pool, gov, chatBody(parts, next()), randomUUID())
        const t = await turnCosts(gov, pool, o.turns, o.conversations, next)
        const convCpu = (t.conv.cpuSeconds * 1e6) / t.conv.calls
        const singleCpu = (t.single.cpuSeconds * 1e6) / t.single.calls
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
        lines.push(
          `## ${o.turns}-turn conversation vs 1-turn calls (${o.conversations} conversations, ${t.single.calls} 1-turn calls, interleaved, sequential)`,
          '',
          '| | gov CPU µs per call | wall ms per call (mean) | wall ms, median |',
          '|---|---:|---:|---:|',
          `| 1-turn call | ${fixed(singleCpu, 0)} | ${fixed(t.single.wallMs / t.single.calls)} | ${fixed(median(t.singles))} |`,
          `| turn of a ${o.turns}-turn conversation (all turns) | ${fixed(convCpu, 0)} | ${fixed(t.conv.wallMs / t.conv.calls)} | |`,
          `| last 10 turns of each conversation | | | ${fixed(median(t.lastTurns))} |`,
          `| **ratio, turn / 1-turn call** | **${fixed(convCpu / singleCpu)}×** | ${fixed(t.conv.wallMs / t.conv.calls / (t.single.wallMs / t.single.calls))}× | ${fixed(median(t.lastTurns) / median(t.singles))}× (last 10 turns) |`,
          '',
        )
      } finally {
        await pool.close()
      }
      log(
        `rss: ${o['rss-warmup']} warm-up calls, then ${o['rss-calls']} calls × ${o.connections} connections`,
      )
      const r = await rssRun(
        gov,
        {
          calls: o['rss-calls'],
          warmup: o['rss-warmup'],
          samples: o['rss-samples'],
          connections: o.connections,
        },
        next,
      )
      const f = flatness(r.rss)
      lines.push(
        `## Resident size over ${r.calls} calls after ${o['rss-warmup']} warm-up calls (${r.rss.length} samples, 64 sessions, ${o.connections} connections)`,
        '',
        `first ${mb(f.first)}, last ${mb(f.last)}, min ${mb(f.min)}, max ${mb(f.max)}; largest drift from the first sample ${fixed(f.maxDrift * 100, 1)} % → ${f.flat ? 'flat (within ±10 %)' : 'NOT flat (beyond ±10 %)'}`,
        '',
        `resident samples (MB): ${r.rss.map((b) => (b / 1024 / 1024).toFixed(0)).join(' ')}`,
        '',
        `V8 heap used at the same points (MB; after whatever GC last ran): ${r.heap.map((b) => (b / 1024 / 1024).toFixed(0)).join(' ')}`,
        '',
      )
    } finally {
      await gov.stop()
    }
  } finally {
    await mock.stop()
  }
  const stamp = new Date().toISOString()
  const text = [
    '# gov conversation and memory check',
    '',
    `${stamp} · commit ${commitLabel()} · load average ${loadLabel()} · Node ${process.versions.node} · gov \`standard\` (every step) on core 0, unique ~1 KB prompts · storage: ${storageLabel()}`,
    '',
    ...lines,
  ].join('\n')
  const out = join(resultsDir, `conversation-${stamp.replace(/[:.]/g, '-')}.md`)
  await writeFile(out, text)
  process.stdout.write(`${text}\nwritten to ${out}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:conversation FAILED: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
})
