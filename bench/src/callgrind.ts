/**
 * `npm run bench:callgrind`: machine instructions per call of gov (and of the
 * bare proxy), counted by `valgrind --tool=callgrind` in the server process
 * alone, over a measured window of calls after a warm-up; plus the functions
 * that cost the most in that window (`callgrind_annotate`, inclusive and
 * exclusive). Instruction counts do not move with the machine's load, so two
 * builds compare side by side to a fraction of a percent where CPU time needs
 * many rounds.
 *
 * Per build and target, in turn: gov (`cpu-gov.ts`) starts under callgrind
 * with instrumentation off (the mock provider runs in its own process and
 * the calls come from this one, neither counted); `--warmup` calls;
 * `callgrind_control --instr=on` and `--zero`;
 * `--calls` calls with distinct ~1 KB prompts; `callgrind_control --dump`
 * (that dump is the measured window, nothing else); stop.
 *
 * V8's JIT stays on (as in production; callgrind handles generated code):
 * `--perf-basic-prof` makes node write the JIT code's names to
 * `/tmp/perf-<pid>.map`, and the functions callgrind only knows by address are
 * renamed `JS:<name>` from it before annotating. `--node-flags --jitless`
 * measures the interpreter instead.
 *
 * Options: see `callgrind-options.ts` and bench/README.md.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PRESETS } from '@gov/host'
import { type Annotated, annotate, prepareDump } from './callgrind-files.js'
import { type CallgrindScenario, type CallgrindTarget, parseCallgrindOptions } from './callgrind-options.js'
import { chatBody } from './chat-body.js'
import { conversationBody } from './conversation-model.js'
import { prepareAgent, waitStarted } from './gov-setup.js'
import { buildPromptParts } from './prompts.js'
import { commitLabel, loadLabel } from './run-info.js'
import { startServerProcess } from './server-process.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..', '..')
const options = parseCallgrindOptions(process.argv.slice(2), root)
mkdirSync(options.out, { recursive: true })

for (const tool of ['valgrind', 'callgrind_control', 'callgrind_annotate']) {
  if (spawnSync(tool, ['--help'], { stdio: 'ignore' }).error)
    throw new Error(`${tool} not found: install valgrind (apt-get install valgrind)`)
}

const parts = buildPromptParts()
let nextPrompt = 2_000_000

interface Server {
  child: ChildProcess
  pid: number
  url: string
  /** Bearer key for calls. */
  key: string
  /** The callgrind output file's name, before its `.<pid>[.n]` suffix. */
  outBase: string
}

/** Start `cpu-gov.js` (gov of `module`, or the bare proxy) under callgrind; resolves once it listens. */
async function startUnderCallgrind(
  name: string,
  env: Record<string, string>,
  mockUrl: string,
  adminKey: string,
): Promise<Server> {
  const outBase = join(options.out, name)
  const log = openSync(`${outBase}.log`, 'w')
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      // Start-up and warm-up run uninstrumented (several times faster); the window turns it on.
      '--instr-atstart=no',
      `--callgrind-out-file=${outBase}.%p`,
      process.execPath,
      '--perf-basic-prof',
      // It turns V8's log on too: into the out folder (removed after), not an isolate-*.log in the checkout.
      `--logfile=${outBase}.v8.log`,
      '--no-logfile-per-isolate',
      ...options.nodeFlags,
      '--import',
      'reflect-metadata',
      join(here, 'cpu-gov.js'),
    ],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        GOV_PORT: '0',
        GOV_HOST: '127.0.0.1',
        GOV_ADMIN_API_KEY: adminKey,
        OPENAI_BASE_URL: `${mockUrl}/v1`,
        OPENAI_API_KEY: 'bench-provider-key',
        ANTHROPIC_BASE_URL: mockUrl,
        ANTHROPIC_API_KEY: 'bench-provider-key',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['pipe', 'pipe', log],
    },
  )
  closeSync(log)
  const ready = await new Promise<{ url: string }>((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} did not start under valgrind within 20 minutes; see ${outBase}.log`))
    }, 1_200_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with code ${code} before it was ready; see ${outBase}.log`))
    })
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk
      const line = buffered.split('\n').find((l) => l.startsWith('{"ready":true'))
      if (!line) return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      resolve(JSON.parse(line) as { url: string })
    })
  })
  return { child, pid: child.pid!, url: ready.url, key: 'bench-provider-key', outBase }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/**
 * `count` calls with new prompts, `options.concurrency` at a time; each must
 * answer 200. With `retryStale`, a 502 for a provider connection the mock
 * closed meanwhile (after a pause of more than its 5 s keep-alive: other
 * servers starting, valgrind's own work) is tried again, up to 5 times in all.
 */
async function calls(server: Server, count: number, retryStale = false): Promise<void> {
  let retries = retryStale ? 5 : 0
  let left = count
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, Math.max(count, 1)) }, async () => {
      while (left-- > 0) {
        const res = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
          body: chatBody(parts, nextPrompt++),
        })
        const text = await res.text()
        if (res.status === 502 && text.includes('upstream_unreachable') && retries-- > 0) {
          left++
          continue
        }
        if (res.status !== 200) throw new Error(`answered ${res.status}: ${text.slice(0, 300)}`)
      }
    }),
  )
}

/** One call with `body`; returns the answer's text (a non-200 answer throws). */
async function post(server: Server, body: string, session: string): Promise<string> {
  for (let retries = 5; ; retries--) {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${server.key}`,
        'x-gov-session': session,
      },
      body,
    })
    const text = await res.text()
    if (res.status === 502 && text.includes('upstream_unreachable') && retries > 0) continue
    if (res.status !== 200) throw new Error(`answered ${res.status}: ${text.slice(0, 300)}`)
    const answer = (JSON.parse(text) as { choices?: { message?: { content?: string } }[] }).choices?.[0]
      ?.message?.content
    return answer ?? ''
  }
}

/** A conversation in progress: its prompts start at `first`, `answers` holds the answers so far. */
interface Conversation {
  first: number
  session: string
  answers: string[]
}

function newConversation(): Conversation {
  const first = nextPrompt
  nextPrompt += options.turns
  return { first, session: randomBytes(12).toString('hex'), answers: [] }
}

/** The next turn of `c`: its whole history and a new user message, as a chat client resends it. */
async function turn(server: Server, c: Conversation): Promise<void> {
  c.answers.push(await post(server, conversationBody(parts, c.first, c.answers), c.session))
}

/** Whole conversations of `options.turns` turns, one after the other. */
async function conversations(server: Server, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const c = newConversation()
    for (let t = 0; t < options.turns; t++) await turn(server, c)
  }
}

function control(pid: number, command: '--instr=on' | '--zero' | '--dump'): void {
  const r = spawnSync('callgrind_control', [command, String(pid)], { encoding: 'utf8', timeout: 300_000 })
  if (r.status !== 0 || !/OK/.test(r.stdout))
    throw new Error(`callgrind_control ${command} ${pid} failed: ${r.stdout} ${r.stderr}`)
}

interface Measured {
  build: string
  target: CallgrindTarget
  scenario: CallgrindScenario
  calls: number
  annotated: Annotated
}

interface Job {
  build: { label: string; module: string }
  target: CallgrindTarget
  name: string
}

/** Start one job's server under callgrind and give agent `bench` its pipeline. */
async function prepare(job: Job, mockUrl: string): Promise<Server> {
  const adminKey = `bench_admin_${randomBytes(12).toString('hex')}`
  const env: Record<string, string> =
    job.target === 'bare' ? { GOV_BENCH_BARE_UPSTREAM: mockUrl } : { GOV_BENCH_HOST_MODULE: job.build.module }
  const started = Date.now()
  const server = await startUnderCallgrind(job.name, env, mockUrl, adminKey)
  try {
    if (job.target !== 'bare') {
      await waitStarted(server.url, 1_200_000)
      server.key = await prepareAgent(
        server.url,
        adminKey,
        job.target === 'empty'
          ? {
              pipeline_id: 'bench-empty',
              preset: 'standard',
              overrides: Object.fromEntries(
                (PRESETS.standard?.steps ?? []).map((s) => [s.name, { disabled: true }]),
              ),
            }
          : { pipeline_id: 'bench-standard', preset: 'standard', overrides: {} },
      )
    }
  } catch (err) {
    await stop(server.child)
    throw err
  }
  process.stderr.write(
    `${job.name}: started under valgrind in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  )
  return server
}

/**
 * Warm up; then per scenario: zero the counts, its calls, dump (dump `n` of
 * the process is scenario `n`'s window); then stop the server.
 */
async function measure(job: Job, server: Server): Promise<Measured[]> {
  const perfMap = `/tmp/perf-${server.pid}.map`
  const dumps: string[] = []
  try {
    const warmStart = Date.now()
    await calls(server, options.warmup, true)
    // Long bodies take other paths (and other JIT code) than 1-turn calls: warm those up too.
    if (options.warmup > 0 && options.scenarios.some((s) => s !== 'single'))
      await conversations(server, options.conversations)
    control(server.pid, '--instr=on')
    // A few calls instrumented but not counted: valgrind translates the code again, and the
    // provider connection is in use again right before the zero (which takes well under a second).
    await calls(server, Math.min(options.warmup, 20), true)
    const measured: { scenario: CallgrindScenario; calls: number }[] = []
    for (const scenario of options.scenarios) {
      let count: number
      const started = Date.now()
      if (scenario === 'single') {
        control(server.pid, '--zero')
        await calls(server, options.calls)
        count = options.calls
      } else if (scenario === 'conversation') {
        control(server.pid, '--zero')
        await conversations(server, options.conversations)
        count = options.conversations * options.turns
      } else {
        // Turns 1 … turns-1 of each conversation before the window, turn `turns` of each in it.
        const open = Array.from({ length: options.conversations }, newConversation)
        for (const c of open) for (let t = 1; t < options.turns; t++) await turn(server, c)
        control(server.pid, '--zero')
        for (const c of open) await turn(server, c)
        count = options.conversations
      }
      control(server.pid, '--dump')
      dumps.push(`${server.outBase}.${server.pid}.${dumps.length + 1}`)
      measured.push({ scenario, calls: count })
      process.stderr.write(
        `${job.name}: ${scenario}, ${count} measured calls in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      )
    }
    process.stderr.write(
      `${job.name}: done ${((Date.now() - warmStart) / 1000).toFixed(0)} s after the warm-up began\n`,
    )
    const map = existsSync(perfMap) ? readFileSync(perfMap, 'utf8') : undefined
    return measured.map((m, i) => {
      const dump = dumps[i]!
      if (!existsSync(dump)) throw new Error(`callgrind wrote no dump ${dump}`)
      prepareDump(dump, map)
      return {
        build: job.build.label,
        target: job.target,
        scenario: m.scenario,
        calls: m.calls,
        annotated: annotate(dump, options.top),
      }
    })
  } finally {
    await stop(server.child)
    // The final dump (from the measured window to exit) and node's perf map are not needed.
    rmSync(`${server.outBase}.${server.pid}`, { force: true })
    rmSync(perfMap, { force: true })
    rmSync(`${server.outBase}.v8.log`, { force: true })
  }
}

const jobs: Job[] = []
for (const target of options.targets) {
  if (target === 'bare') jobs.push({ build: { label: 'bare proxy', module: '' }, target, name: 'bare' })
  else for (const build of options.builds) jobs.push({ build, target, name: `${build.label}-${target}` })
}
const mock = await startServerProcess(
  'mock provider',
  join(here, 'callgrind-mock.js'),
  { LOG_LEVEL: 'warn' },
  join(options.out, 'mock.log'),
)
const results: Measured[] = []
// Servers start together (starting node and gov under valgrind takes minutes; an idle one costs
// nothing), then are measured one at a time, so the calls never compete with another measured window.
const servers = await Promise.allSettled(jobs.map((job) => prepare(job, mock.info.url)))
try {
  const failed = servers.find((s) => s.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
  for (const [i, job] of jobs.entries())
    results.push(...(await measure(job, (servers[i] as PromiseFulfilledResult<Server>).value)))
} finally {
  for (const s of servers) if (s.status === 'fulfilled') await stop(s.value.child)
  await mock.stop()
}

const k = (ir: number, calls: number) => (ir / calls / 1000).toFixed(1)
const lines = [
  `# gov instructions per call under callgrind (bench:callgrind), ${new Date().toISOString()}`,
  '',
  `Tree ${commitLabel()}; ${loadLabel()}; Node ${process.versions.node}${options.nodeFlags.length ? ` ${options.nodeFlags.join(' ')}` : ''}; ${options.warmup} warm-up calls, then per window: ${options.scenarios.map(scenarioLabel).join('; ')} (concurrency ${options.concurrency} for 1-turn calls, conversations one call at a time), non-streaming OpenAI chat, ~1 KB distinct prompts; the server process only (all its threads).`,
  '',
  '| target | build | window | k instructions per call | of which V8 GC | V8 optimising compilers | the rest |',
  '|---|---|---|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.target === 'bare' ? 'bare proxy' : `gov ${r.target}`} | ${r.target === 'bare' ? '—' : r.build} | ${r.scenario} | **${k(r.annotated.total, r.calls)}** | ${k(r.annotated.gc, r.calls)} | ${k(r.annotated.compiler, r.calls)} | **${k(r.annotated.total - r.annotated.gc - r.annotated.compiler, r.calls)}** |`,
  ),
  '',
  'GC and compiler work come in bursts (a major collection in a short window can double the total); compare builds by "the rest" unless the windows are long.',
  ...ratioLines(),
]

function scenarioLabel(s: CallgrindScenario): string {
  if (s === 'single') return `${options.calls} new 1-turn calls`
  if (s === 'conversation')
    return `${options.conversations} whole ${options.turns}-turn conversations (${options.conversations * options.turns} calls, each resending its history)`
  return `turn ${options.turns} of ${options.conversations} conversations (turns 1–${options.turns - 1} played just before the window)`
}

/** Per target and build with a `single` window: each other window's cost per call over the 1-turn call's. */
function ratioLines(): string[] {
  const rows: string[] = []
  for (const r of results) {
    if (r.scenario === 'single') continue
    const one = results.find((o) => o.scenario === 'single' && o.target === r.target && o.build === r.build)
    if (!one) continue
    const per = (m: Measured, rest: boolean) =>
      (rest ? m.annotated.total - m.annotated.gc - m.annotated.compiler : m.annotated.total) / m.calls
    rows.push(
      `| ${r.target === 'bare' ? 'bare proxy' : `gov ${r.target}`} | ${r.target === 'bare' ? '—' : r.build} | ${r.scenario} | **${(per(r, false) / per(one, false)).toFixed(2)}×** | ${(per(r, true) / per(one, true)).toFixed(2)}× |`,
    )
  }
  if (rows.length === 0) return []
  return [
    '',
    'Per call, over a new 1-turn call on the same server:',
    '',
    '| target | build | window | all instructions | the rest (without GC and compilers) |',
    '|---|---|---|---:|---:|',
    ...rows,
  ]
}
for (const r of results) {
  const title = `${r.target === 'bare' ? 'bare proxy' : `gov ${r.target}, ${r.build}`}, ${r.scenario}`
  for (const [kind, rows] of [
    ['inclusive (JS functions)', r.annotated.inclusive],
    ['exclusive (self)', r.annotated.exclusive],
  ] as const) {
    lines.push(
      '',
      `## ${title}: top ${rows.length} ${kind}, k instructions per call`,
      '',
      '| k/call | % | function |',
      '|---:|---:|---|',
    )
    for (const row of rows)
      lines.push(
        `| ${k(row.ir, r.calls)} | ${((100 * row.ir) / r.annotated.total).toFixed(1)} | ${row.name.replaceAll('|', '\\|')} |`,
      )
  }
}
const report = `${lines.join('\n')}\n`
const file = join(options.out, `callgrind-${new Date().toISOString().replaceAll(':', '-')}.md`)
writeFileSync(file, report)
process.stdout.write(report)
process.stderr.write(`written to ${file}; callgrind dumps of the measured windows in ${options.out}\n`)
