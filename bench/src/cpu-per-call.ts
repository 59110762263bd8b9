/**
 * `npm run bench:cpu`: gov's own process CPU (user + system µs, from
 * `process.cpuUsage()` inside gov) per call, for one or more builds of the host
 * side by side in one run, so a before/after comparison shares the machine's
 * conditions. Each build runs in its own gov process (`cpu-gov.ts`); the mock
 * provider and the calls run in this process, so their CPU is not counted.
 *
 * Scenarios (every one with the agent on the empty pipeline: preset `standard`,
 * every step disabled, so what is measured is gov itself):
 * - `openai-1`, `anthropic-1`: new 1-turn calls (a new ~1 KB prompt each).
 * - `openai-conv`, `anthropic-conv`: turn `--turns` of a conversation. Before
 *   measuring, `--conversations` conversations of `--turns` − 1 turns are played
 *   turn by turn (each resending the whole history with the answers the
 *   provider gave; no `X-Gov-Session`, so for Anthropic gov derives the session
 *   from the history); each measured call is one of those histories plus a new
 *   user turn (`--conversation-calls` per measurement).
 *
 * Rounds alternate builds and scenarios (`--reps` rounds), so a burst of other
 * work on the machine hits every build alike.
 *
 * - `--load S` (default 0, off): after the scenarios of each round, every
 *   build (the bare proxy too) gets S seconds of autocannon load (the load
 *   worker of `npm run bench`, 1 s warm-up, `--load-connections` 32, OpenAI
 *   1-turn calls with unique prompts); the servers are then pinned to core 0
 *   and the worker to core 1, as in `npm run bench`. Reported: req/s, its ratio
 *   to the bare proxy in the same round, and gov's CPU µs per call under load.
 *
 * Options: `--builds label=path,…` (path to a host `dist/src/index.js`, or
 * `@gov/host`; default `current=@gov/host`), `--calls` (1-turn calls per
 * measurement, 1 500), `--turns` (50), `--conversations` (4), `--conversation-calls` (200), `--concurrency`
 * (4), `--reps` (3), `--scenarios` (all four; empty for load only), `--load`, `--load-connections`, `--node-flags` (e.g. `--cpu-prof`).
 */
import { type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { PRESETS } from '@gov/host'
import { startMockProvider } from '@gov/host/testing'
import { prepareAgent, waitStarted } from './gov-setup.js'
import type { LoadJob } from './load-worker.js'
import { buildPromptParts, promptText } from './prompts.js'
import { commitLabel, loadLabel } from './run-info.js'
import { runLoad } from './run-load.js'
import { SERVER_CORE } from './server-process.js'
import { spawnNode } from './spawn-pinned.js'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, '..', '..', 'results')

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: 'current=@gov/host' },
    bare: { type: 'string', default: '1' },
    calls: { type: 'string', default: '1500' },
    turns: { type: 'string', default: '50' },
    conversations: { type: 'string', default: '4' },
    'conversation-calls': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '4' },
    reps: { type: 'string', default: '3' },
    scenarios: { type: 'string', default: 'openai-1,anthropic-1,openai-conv,anthropic-conv' },
    'node-flags': { type: 'string', default: '' },
    load: { type: 'string', default: '0' },
    'load-connections': { type: 'string', default: '32' },
  },
})
const LOAD_SECONDS = Number(values.load)
const LOAD_CONNECTIONS = Number(values['load-connections'])
const CALLS = Number(values.calls)
const TURNS = Number(values.turns)
const CONVERSATIONS = Number(values.conversations)
const CONCURRENCY = Number(values.concurrency)
const REPS = Number(values.reps)
const SCENARIOS = values.scenarios.split(',').filter(Boolean)
const CONV_CALLS = Number(values['conversation-calls'])

const parts = buildPromptParts()
let nextPrompt = 1_000

interface Gov {
  label: string
  url: string
  agentKey: string
  cpu(): Promise<number>
  stop(): Promise<void>
}

/** Start one build of gov and give agent `bench` the empty pipeline. */
async function startGov(
  label: string,
  module: string,
  mock: { url: string; openaiBaseUrl: string },
): Promise<Gov> {
  mkdirSync(join(resultsDir, 'logs'), { recursive: true })
  const adminKey = `bench_admin_${randomBytes(12).toString('hex')}`
  const log = openSync(join(resultsDir, 'logs', `cpu-gov-${label}.log`), 'w')
  const child = spawnNode(
    join(here, 'cpu-gov.js'),
    [],
    // Under load the server gets core 0 and the load worker core 1, as in `npm run bench`.
    LOAD_SECONDS > 0 ? SERVER_CORE : undefined,
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        GOV_BENCH_HOST_MODULE: module,
        ...(module === 'bare' ? { GOV_BENCH_BARE_UPSTREAM: mock.url } : {}),
        GOV_PORT: '0',
        GOV_HOST: '127.0.0.1',
        GOV_ADMIN_API_KEY: adminKey,
        OPENAI_BASE_URL: mock.openaiBaseUrl,
        OPENAI_API_KEY: 'bench-provider-key',
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: 'bench-provider-key',
        LOG_LEVEL: 'warn',
        GOV_MEMORY_AUDIT_MAX: '1000',
      },
      stdio: ['pipe', 'pipe', log],
    },
    values['node-flags'].split(' ').filter(Boolean),
  )
  closeSync(log)
  const lines = lineReader(child)
  const ready = JSON.parse(await lines.next(120_000)) as { url: string }
  const agentKey = module === 'bare' ? 'bench-provider-key' : await startedAgent(ready.url, adminKey)
  return {
    label,
    url: ready.url,
    agentKey,
    async cpu() {
      child.stdin!.write('cpu\n')
      return (JSON.parse(await lines.next(10_000)) as { cpu: number }).cpu
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

async function startedAgent(url: string, adminKey: string): Promise<string> {
  await waitStarted(url)
  return prepareAgent(url, adminKey, {
    pipeline_id: 'bench-empty',
    preset: 'standard',
    overrides: Object.fromEntries((PRESETS.standard?.steps ?? []).map((s) => [s.name, { disabled: true }])),
  })
}

/** The child's stdout as JSON lines, one at a time. */
function lineReader(child: ChildProcess): { next(timeoutMs: number): Promise<string> } {
  const queue: string[] = []
  const waiting: ((line: string) => void)[] = []
  let buffered = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      if (!line.startsWith('{')) continue
      const w = waiting.shift()
      if (w) w(line)
      else queue.push(line)
    }
  })
  return {
    next(timeoutMs) {
      const line = queue.shift()
      if (line !== undefined) return Promise.resolve(line)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('gov printed nothing in time')), timeoutMs)
        waiting.push((l) => {
          clearTimeout(timer)
          resolve(l)
        })
      })
    },
  }
}

type Vendor = 'openai' | 'anthropic'
type Message = { role: string; content: unknown }

const SYSTEM = 'You are a helpful assistant. Answer briefly and concretely.'

/** One call; returns the assistant message to resend next turn. */
async function call(gov: Gov, vendor: Vendor, messages: Message[]): Promise<Message> {
  const openai = vendor === 'openai'
  const body = openai
    ? {
        model: 'gpt-4o-mini',
        stream: false,
        max_tokens: 512,
        messages: [{ role: 'system', content: SYSTEM }, ...messages],
      }
    : { model: 'claude-haiku-4-5', max_tokens: 512, system: SYSTEM, messages }
  const res = await fetch(`${gov.url}${openai ? '/v1/chat/completions' : '/v1/messages'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${gov.agentKey}`,
      ...(openai ? {} : { 'anthropic-version': '2023-06-01' }),
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status !== 200)
    throw new Error(`${gov.label} ${vendor} answered ${res.status}: ${text.slice(0, 300)}`)
  const answer = JSON.parse(text) as {
    choices?: { message: { content: string } }[]
    content?: unknown
  }
  return openai
    ? { role: 'assistant', content: answer.choices?.[0]?.message.content ?? '' }
    : { role: 'assistant', content: answer.content }
}

function userTurn(): Message {
  return { role: 'user', content: promptText(parts, nextPrompt++) }
}

/** `count` 1-turn calls, `CONCURRENCY` at a time; gov CPU µs per call. */
async function oneTurn(gov: Gov, vendor: Vendor, count: number): Promise<number> {
  const before = await gov.cpu()
  let left = count
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await call(gov, vendor, [userTurn()])
    }),
  )
  return ((await gov.cpu()) - before) / count
}

/** Per gov and vendor: conversations of `TURNS - 1` answered turns, played once before measuring. */
const histories = new Map<string, Message[][]>()

/** Play `CONVERSATIONS` conversations of `TURNS - 1` turns (the history every measured turn resends). */
async function prepareConversations(gov: Gov, vendor: Vendor): Promise<void> {
  const played: Message[][] = Array.from({ length: CONVERSATIONS }, () => [])
  for (let turn = 1; turn < TURNS; turn++) {
    await Promise.all(
      played.map(async (history) => {
        history.push(userTurn())
        history.push(await call(gov, vendor, history))
      }),
    )
  }
  histories.set(`${gov.label}\t${vendor}`, played)
}

/**
 * `count` calls of turn `TURNS`: one of the prepared histories (seen by gov
 * already, turn by turn) plus a new user turn, `CONCURRENCY` at a time; gov CPU µs per call.
 */
async function conversationTurns(gov: Gov, vendor: Vendor, count: number): Promise<number> {
  const played = histories.get(`${gov.label}\t${vendor}`)!
  const before = await gov.cpu()
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let k = next++; k < count; k = next++)
        await call(gov, vendor, [...played[k % played.length]!, userTurn()])
    }),
  )
  return ((await gov.cpu()) - before) / count
}

async function measure(gov: Gov, scenario: string): Promise<number> {
  const [vendor, kind] = scenario.split('-') as [Vendor, string]
  return kind === 'conv' ? conversationTurns(gov, vendor, CONV_CALLS) : oneTurn(gov, vendor, CALLS)
}

/** `LOAD_SECONDS` of autocannon load on one build: req/s and gov CPU µs per call (warm-up calls included). */
async function underLoad(gov: Gov): Promise<{ rps: number; cpu: number; failed: number }> {
  const job: LoadJob = {
    url: gov.url,
    headers: { authorization: `Bearer ${gov.agentKey}` },
    connections: LOAD_CONNECTIONS,
    durationSeconds: LOAD_SECONDS,
    warmupSeconds: 1,
    unloadedRequests: 0,
  }
  const before = await gov.cpu()
  const r = await runLoad(join(here, 'load-worker.js'), job)
  const cpu = (await gov.cpu()) - before
  const calls = r.warmup.requests + r.loaded.total
  const failed = r.warmup.non2xx + r.warmup.errors + r.loaded.non2xx + r.loaded.errors
  return { rps: r.loaded.requestsPerSecond, cpu: calls > 0 ? cpu / calls : Number.NaN, failed }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const mock = await startMockProvider({ recordRequests: false })
const builds = values.builds.split(',').map((b) => {
  const at = b.indexOf('=')
  return at < 0 ? { label: b, module: b } : { label: b.slice(0, at), module: b.slice(at + 1) }
})
if (values.bare === '1') builds.unshift({ label: 'bare proxy', module: 'bare' })
const govs: Gov[] = []
try {
  for (const b of builds) govs.push(await startGov(b.label, b.module, mock))
  // Warm-up: JIT, caches, first-call set-up.
  for (const gov of govs) {
    await oneTurn(gov, 'openai', 300)
    await oneTurn(gov, 'anthropic', 300)
    for (const vendor of ['openai', 'anthropic'] as const)
      if (SCENARIOS.includes(`${vendor}-conv`)) await prepareConversations(gov, vendor)
  }
  const results = new Map<string, number[]>()
  const loadFailures: string[] = []
  for (let rep = 0; rep < REPS; rep++) {
    for (const scenario of SCENARIOS) {
      const order = rep % 2 ? [...govs].reverse() : govs
      for (const gov of order) {
        const us = await measure(gov, scenario)
        const key = `${scenario}\t${gov.label}`
        results.set(key, [...(results.get(key) ?? []), us])
        process.stderr.write(`rep ${rep + 1} ${scenario} ${gov.label}: ${us.toFixed(0)} µs\n`)
      }
    }
    if (LOAD_SECONDS > 0) {
      for (const gov of rep % 2 ? [...govs].reverse() : govs) {
        const r = await underLoad(gov)
        for (const [key, value] of [
          [`load-rps\t${gov.label}`, r.rps],
          [`load-cpu\t${gov.label}`, r.cpu],
        ] as const)
          results.set(key, [...(results.get(key) ?? []), value])
        if (r.failed > 0) loadFailures.push(`round ${rep + 1} ${gov.label}: ${r.failed} failed calls`)
        process.stderr.write(
          `rep ${rep + 1} load ${gov.label}: ${r.rps.toFixed(0)} req/s, ${r.cpu.toFixed(0)} µs CPU per call\n`,
        )
      }
    }
  }
  const lines = [
    `# gov CPU per call (bench:cpu), ${new Date().toISOString()}`,
    '',
    `Tree ${commitLabel()}; ${loadLabel()}; empty pipeline; per measurement ${CALLS} 1-turn calls or ${CONV_CALLS} calls of turn ${TURNS} (${CONVERSATIONS} histories played turn by turn first, each call one of them plus a new user turn); concurrency ${CONCURRENCY}; ${REPS} rounds.`,
    '',
    `| scenario | ${govs.map((g) => `${g.label}: median µs (rounds)`).join(' | ')} |`,
    `|---|${govs.map(() => '---:').join('|')}|`,
  ]
  for (const scenario of SCENARIOS) {
    const cells = govs.map((g) => {
      const xs = results.get(`${scenario}\t${g.label}`) ?? []
      return `**${median(xs).toFixed(0)}** (${xs.map((x) => x.toFixed(0)).join(', ')})`
    })
    lines.push(`| ${scenario} | ${cells.join(' | ')} |`)
  }
  // Paired: each round's measurement of a build over the first build's in the same round.
  const reference = govs.find((g) => g.label !== 'bare proxy')
  const others = govs.filter((g) => g !== reference && g.label !== 'bare proxy')
  if (reference && others.length > 0) {
    lines.push(
      '',
      `Paired ratio to \`${reference.label}\` (median over rounds of the same round's two measurements):`,
      '',
      `| scenario | ${others.map((g) => g.label).join(' | ')} |`,
      `|---|${others.map(() => '---:').join('|')}|`,
    )
    for (const scenario of SCENARIOS) {
      const ref = results.get(`${scenario}\t${reference.label}`) ?? []
      const cells = others.map((g) => {
        const xs = results.get(`${scenario}\t${g.label}`) ?? []
        return `${median(xs.map((x, i) => x / ref[i]!)).toFixed(3)}×`
      })
      lines.push(`| ${scenario} | ${cells.join(' | ')} |`)
    }
  }
  if (LOAD_SECONDS > 0) {
    const bare = govs.find((g) => g.label === 'bare proxy')
    const bareRps = bare ? (results.get(`load-rps\t${bare.label}`) ?? []) : []
    const refRps = reference ? (results.get(`load-rps\t${reference.label}`) ?? []) : []
    lines.push(
      '',
      `Under load: ${LOAD_SECONDS} s × ${LOAD_CONNECTIONS} connections per build per round (1 s warm-up), servers on core 0, load worker on core 1. req/s median (rounds); ratio to the bare proxy and to \`${reference?.label ?? '—'}\` paired by round (median); gov CPU µs per call under load, median (rounds).`,
      '',
      '| build | req/s | vs bare proxy | vs first build | CPU µs per call |',
      '|---|---:|---:|---:|---:|',
    )
    for (const g of govs) {
      const rps = results.get(`load-rps\t${g.label}`) ?? []
      const cpu = results.get(`load-cpu\t${g.label}`) ?? []
      const vsBare = bare && g !== bare ? `${median(rps.map((x, i) => x / bareRps[i]!)).toFixed(3)}×` : '—'
      const vsRef =
        reference && g !== reference && g !== bare
          ? `${median(rps.map((x, i) => x / refRps[i]!)).toFixed(3)}×`
          : '—'
      lines.push(
        `| ${g.label} | **${median(rps).toFixed(0)}** (${rps.map((x) => x.toFixed(0)).join(', ')}) | ${vsBare} | ${vsRef} | **${median(cpu).toFixed(0)}** (${cpu.map((x) => x.toFixed(0)).join(', ')}) |`,
      )
    }
    if (loadFailures.length > 0)
      lines.push(
        '',
        `**Failed calls under load** (the numbers above are not usable): ${loadFailures.join('; ')}`,
      )
  }
  console.log(lines.join('\n'))
  if (loadFailures.length > 0) process.exitCode = 1
} finally {
  for (const gov of govs) await gov.stop()
  await mock.close()
}
