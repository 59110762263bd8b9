/**
 * `npm run bench:steps`: what each step's `onRequest` costs, measured in
 * process on realistic 1 KB prompts: per KB on texts it has not seen, per call
 * on a text it has (its verdict cache), the four detectors together, and a
 * 50-turn conversation governed whole on every turn, with a fresh instance
 * per turn against one instance keeping its cache.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { StepInstance, StepPlugin } from '@gov/core'
import {
  type FakeMessage,
  makeAnswer,
  makeExchange,
  makeOutcomeContext,
  makeRequestContext,
  makeServices,
} from '@gov/core/testing'
import { Value } from 'typebox/value'
import { buildPromptParts, promptText } from './prompts.js'
import { summarize } from './stats.js'
import { loadBuiltinSteps } from './step-plugins.js'

const DETECTORS = ['detect_injection', 'detect_pii', 'detect_business', 'scan_secrets']
const SYSTEM = 'You are a helpful assistant. Answer briefly and concretely.'
/** Runs of each hook before timing starts (JIT, lazy tables). */
const WARMUP = 20

const parts = buildPromptParts()
const here = dirname(fileURLToPath(import.meta.url))

interface Options {
  runs: number
  turns: number
}

function parseOptions(argv: string[]): Options {
  const options: Options = { runs: 500, turns: 50 }
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1])
    if (!Number.isInteger(value) || value < 1) throw new Error(`${argv[i]} takes a positive integer`)
    if (argv[i] === '--runs') options.runs = Math.max(value, 1)
    else if (argv[i] === '--turns') options.turns = value
    else throw new Error(`unknown option ${argv[i]}; options: --runs --turns`)
  }
  return options
}

async function createInstance(plugin: StepPlugin): Promise<StepInstance> {
  const settings = Value.Default(plugin.settings, {}) as never
  const instance = await plugin.create(settings, makeServices(plugin.name))
  await instance.ready?.()
  return instance
}

/** Time one `onRequest` over `messages` (a fresh Exchange each call, since steps may edit text). */
async function timeRequest(
  instances: readonly StepInstance[],
  messages: FakeMessage[],
): Promise<{ ms: number; kinds: string[] }> {
  const ctx = makeRequestContext(makeExchange(messages))
  const kinds: string[] = []
  const started = performance.now()
  for (const instance of instances) kinds.push((await instance.onRequest!(ctx)).kind)
  const ms = performance.now() - started
  // Untimed: end the call as the host does after a successful upstream call,
  // so a step that opened a single flight (dedupe) releases it; otherwise the
  // next identical prompt would wait for a leader that never answers.
  const ended = makeOutcomeContext(
    ctx.exchange,
    { kind: 'success', status: 200, answer: makeAnswer('ok'), usage: undefined, durationMs: 1 },
    { state: ctx.state },
  )
  for (const instance of instances) await instance.onUpstreamOutcome?.(ended)
  return { ms, kinds }
}

const user = (text: string): FakeMessage => ({ source: 'user', text })
const kb = (text: string) => Buffer.byteLength(text) / 1024
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a')

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

/** Prompt numbers per measurement, far apart so no measurement meets another's texts. */
const RANGE = { warm: 90_000, uncached: 0, cached: 80_000, together: 20_000, conversation: 40_000 }

async function measureStep(plugin: StepPlugin, runs: number): Promise<string[]> {
  const started = performance.now()
  const instance = await createInstance(plugin)
  const readyMs = performance.now() - started
  if (!instance.onRequest) return [plugin.name, plugin.version, f(readyMs), 'no onRequest', '', '', '', '']
  for (let i = 0; i < WARMUP; i++) await timeRequest([instance], [user(promptText(parts, RANGE.warm + i))])
  const perKb: number[] = []
  const verdicts = new Map<string, number>()
  for (let i = 0; i < runs; i++) {
    const text = promptText(parts, RANGE.uncached + i)
    const { ms, kinds } = await timeRequest([instance], [user(text)])
    perKb.push((ms * 1000) / kb(text))
    for (const k of kinds) verdicts.set(k, (verdicts.get(k) ?? 0) + 1)
  }
  const cachedText = promptText(parts, RANGE.cached)
  await timeRequest([instance], [user(cachedText)])
  const cached: number[] = []
  for (let i = 0; i < runs; i++) cached.push((await timeRequest([instance], [user(cachedText)])).ms * 1000)
  await instance.close?.()
  const u = summarize(perKb)
  const c = summarize(cached)
  return [
    plugin.name,
    plugin.version,
    f(readyMs),
    f(u.median),
    f(u.p99),
    f(c.median),
    f(c.p99),
    [...verdicts].map(([k, n]) => `${k} ${n}`).join(', '),
  ]
}

async function measureTogether(plugins: StepPlugin[], runs: number): Promise<string[][]> {
  const instances = await Promise.all(plugins.map(createInstance))
  for (let i = 0; i < WARMUP; i++)
    await timeRequest(instances, [user(promptText(parts, RANGE.warm + 100 + i))])
  const uncached: number[] = []
  for (let i = 0; i < runs; i++)
    uncached.push((await timeRequest(instances, [user(promptText(parts, RANGE.together + i))])).ms)
  const text = promptText(parts, RANGE.cached + 1)
  await timeRequest(instances, [user(text)])
  const cached: number[] = []
  for (let i = 0; i < runs; i++) cached.push((await timeRequest(instances, [user(text)])).ms)
  for (const instance of instances) await instance.close?.()
  const u = summarize(uncached)
  const c = summarize(cached)
  return [
    ['new 1 KB prompt each run', f(u.median, 2), f(u.p99, 2), String(u.n)],
    ['same 1 KB prompt (cached)', f(c.median, 3), f(c.p99, 3), String(c.n)],
  ]
}

/** A conversation of `turns` user/assistant pairs; turn t sends the system message and everything so far. */
function conversation(turns: number): FakeMessage[][] {
  const out: FakeMessage[][] = []
  const history: FakeMessage[] = [{ source: 'system', text: SYSTEM }]
  for (let t = 0; t < turns; t++) {
    history.push(user(promptText(parts, RANGE.conversation + t)))
    out.push([...history])
    history.push({ source: 'assistant', text: parts[(t * 7 + 3) % parts.length]!.body })
  }
  return out
}

async function measureConversation(plugins: StepPlugin[], turns: number): Promise<string[][]> {
  const calls = conversation(turns)
  const rows: string[][] = []
  for (const mode of ['fresh instances every turn', 'one instance, own cache'] as const) {
    let shared =
      mode === 'one instance, own cache' ? await Promise.all(plugins.map(createInstance)) : undefined
    const times: number[] = []
    for (const messages of calls) {
      // Creating (and loading) instances is kept out of the timing: only governing the turn counts.
      const instances = shared ?? (await Promise.all(plugins.map(createInstance)))
      times.push((await timeRequest(instances, messages)).ms)
      if (!shared) for (const instance of instances) await instance.close?.()
    }
    for (const instance of shared ?? []) await instance.close?.()
    shared = undefined
    const total = times.reduce((a, b) => a + b, 0)
    rows.push([
      mode,
      f(total, 1),
      f(times[0]!, 2),
      f(times[times.length - 1]!, 2),
      f(summarize(times).median, 2),
    ])
  }
  return rows
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  const { loaded, missing } = await loadBuiltinSteps()
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const stepRows: string[][] = []
  for (const plugin of loaded) {
    log(`${plugin.name}: ${options.runs} runs`)
    stepRows.push(await measureStep(plugin, options.runs))
  }
  const detectors = loaded.filter((p) => DETECTORS.includes(p.name))
  log(`${detectors.map((p) => p.name).join(' + ')}: together`)
  const togetherRows = detectors.length ? await measureTogether(detectors, options.runs) : []
  log(`conversation of ${options.turns} turns`)
  const conversationRows = detectors.length ? await measureConversation(detectors, options.turns) : []

  const lines = [
    '# gov step micro-benchmark',
    '',
    `${new Date().toISOString()} · Node ${process.versions.node} · ${options.runs} runs per measurement after ${WARMUP} warm-up runs · default settings · prompts ~1 KB of ordinary English`,
    '',
    '## onRequest per step',
    '',
    table(
      [
        'step',
        'version',
        'create+ready ms',
        'new text µs/KB p50',
        'new text µs/KB p99',
        'cached µs p50',
        'cached µs p99',
        'verdicts on new texts',
      ],
      stepRows,
    ),
    '',
    missing.length
      ? `Not installed, not measured: ${missing.map((m) => m.name).join(', ')}.`
      : 'Every built-in step is installed.',
    '',
    `## ${detectors.map((p) => p.name).join(' + ') || 'no detectors installed'}, in one call`,
    '',
    table(['prompt', 'p50 ms', 'p99 ms', 'runs'], togetherRows),
    '',
    `## ${options.turns}-turn conversation, whole conversation governed every turn (same detectors)`,
    '',
    table(['instances', 'total ms', 'first turn ms', 'last turn ms', 'median turn ms'], conversationRows),
    '',
  ]
  const text = lines.join('\n')
  const resultsDir = join(here, '..', '..', 'results')
  await mkdir(resultsDir, { recursive: true })
  await writeFile(join(resultsDir, 'steps-latest.md'), text)
  process.stdout.write(`\n${text}\nwritten to ${join(resultsDir, 'steps-latest.md')}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench:steps FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  )
  process.exitCode = 1
})
