/**
 * The seven agentic steps' hooks (break_circuit, guard_loops, filter_tools,
 * track_taint, constrain_output, track_cost, dedupe), CPU µs per call, for one
 * or more builds side by side in one process (rounds alternate the builds;
 * medians per build). Run after `npm run build`:
 *
 *   node --expose-gc --import reflect-metadata bench/dist/src/agentic-hooks.js \
 *     --builds before=bench/results/baseline-steps,after=. --rounds 7 --n 2000
 *
 * A build is a folder holding `host/dist/src` and `plugins/<step>/dist/src`
 * (this tree, or a copy of an older build under `bench/results/`). Each step is
 * created as gov creates it: the `standard` preset's settings with the schema's
 * defaults, and services from the host's `createStepServices` over the host's
 * own in-process kinds (MemoryKv, MemorySessionBackend, BusFlights over the
 * memory bus), the host's price book (`GenAiPriceBook`), token counter and
 * metrics. Every call is `npm run bench`'s: a non-streaming OpenAI chat body
 * with a new ~1 KB prompt, parsed by the host's OpenAI adapter, and the mock
 * provider's echo answer (usage reported), parsed as gov parses it.
 *
 * Per round and build, `--n` calls go through every request hook, then every
 * upstream-outcome hook, then every response hook, one call at a time; each
 * row is one hook over those `--n` calls (process CPU, user + system, ÷ n). The
 * in-process bus delivers on `setImmediate`: its deliveries are drained inside
 * the timed loop of the hook that published. `runner.outcome` is the host's
 * ChainRunner calling all outcome hooks (the hooks plus the runner's own
 * context, timing and decision records per hook). With `--expose-gc` a full
 * collection runs before each timed loop, so each row pays for the garbage it
 * makes (scavenges in its loop), not for the previous row's. `--session 1` sends every
 * call with a session id (`X-Gov-Session`), as an agent framework does.
 */
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Value } from 'typebox/value'
import { chatBody } from './chat-body.js'
import { buildPromptParts } from './prompts.js'
import { commitLabel, loadLabel } from './run-info.js'

const STEPS = [
  'break_circuit',
  'guard_loops',
  'filter_tools',
  'track_taint',
  'constrain_output',
  'track_cost',
  'dedupe',
] as const

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: 'current=.' },
    rounds: { type: 'string', default: '7' },
    n: { type: 'string', default: '2000' },
    session: { type: 'string', default: '0' },
  },
})
const ROUNDS = Number(values.rounds)
const N = Number(values.n)
const WITH_SESSION = values.session === '1'

type Fn = (...args: unknown[]) => unknown
type Module = Record<string, unknown>
type Hook = 'onRequest' | 'onUpstreamOutcome' | 'onBufferedResponse'

interface Instance {
  onRequest?: Fn
  onUpstreamOutcome?: Fn
  onBufferedResponse?: Fn
}

interface Step {
  name: string
  instance: Instance
  onError: string
}

interface Build {
  label: string
  steps: Step[]
  adapter: { parseRequest: Fn; parseAnswer: Fn }
  echo: Fn
  runner: { outcome: Fn }
  CallState: new () => { stateOf(step: string): Map<string, unknown> }
}

async function load(root: string, path: string): Promise<Module> {
  return (await import(pathToFileURL(resolve(root, path)).href)) as Module
}

async function loadBuild(label: string, dir: string): Promise<Build> {
  const root = resolve(dir)
  const host = (path: string) => load(root, `host/dist/src/${path}`)
  const [memoryKv, eventBus, busFlights, sessions, services, priceBook, tokens, metrics, logging, presets] =
    await Promise.all([
      host('kv/memory-kv.js'),
      host('kv/event-bus.js'),
      host('flights/bus-flights.js'),
      host('sessions/memory-session-backend.js'),
      host('chain/step-services.js'),
      host('usage/price-book.js'),
      host('usage/token-counter.js'),
      host('metrics/metrics.js'),
      host('logging.js'),
      host('chain/presets.js'),
    ])
  const make = <T>(module: Module, name: string, ...args: unknown[]) =>
    new (module[name] as new (...a: unknown[]) => T)(...args)
  const kv = make(memoryKv, 'MemoryKv')
  const bus = make(eventBus, 'MemoryEventBus')
  const deps = {
    logger: (logging.createLogger as Fn)('warn'),
    kv,
    sessions: make(sessions, 'MemorySessionBackend'),
    flights: make(busFlights, 'BusFlights', kv, bus),
    tokens: make(tokens, 'GptTokenCounter'),
    prices: make(priceBook, 'GenAiPriceBook'),
    metrics: make(metrics, 'GovMetrics'),
  }
  const preset = (presets.PRESETS as Record<string, { steps: { name: string; settings: object }[] }>)
    .standard as { steps: { name: string; settings: object }[] }
  const steps: Step[] = []
  for (const name of STEPS) {
    const folder = name.replace('_', '-')
    const plugin = (await load(root, `plugins/${folder}/dist/src/index.js`)).default as {
      settings: Parameters<typeof Value.Default>[0]
      create: (settings: unknown, services: unknown) => Instance | Promise<Instance>
    }
    const own = preset.steps.find((s) => s.name === name)?.settings ?? {}
    const settings = Value.Default(plugin.settings, structuredClone(own))
    const instance = await plugin.create(settings, (services.createStepServices as Fn)(name, deps))
    steps.push({ name, instance, onError: 'fail_closed' })
  }
  const [adapter, testing, runner] = await Promise.all([
    host('adapters/openai-adapter.js'),
    host('testing/mock-echo.js'),
    host('chain/chain-runner.js'),
  ])
  return {
    label,
    steps,
    adapter: make(adapter, 'OpenAiAdapter'),
    echo: testing.openAiEchoBody as Fn,
    runner: make(runner, 'ChainRunner', deps.metrics),
    CallState: runner.CallState as Build['CallState'],
  }
}

/** A hook context as the host's ChainRunner builds it. */
function context(
  step: string,
  phase: string,
  call: object,
  exchange: object,
  state: InstanceType<Build['CallState']>,
  extra: object,
) {
  const findings: object[] = []
  return {
    phase,
    call,
    exchange,
    findings,
    state: state.stateOf(step),
    report(finding: object) {
      findings.push({ ...finding, step, phase })
    },
    grantLabels() {},
    ...extra,
  }
}

interface Call {
  info: object
  exchange: object
  state: InstanceType<Build['CallState']>
  outcome?: object
  answer?: object
}

const parts = buildPromptParts()
let next = 0

function newCalls(build: Build, n: number): Call[] {
  const calls: Call[] = []
  for (let i = 0; i < n; i++) {
    const body = JSON.parse(chatBody(parts, next++)) as Record<string, unknown>
    const exchange = build.adapter.parseRequest(body) as object
    calls.push({
      info: {
        requestId: randomUUID(),
        agentId: 'bench-agent',
        sessionId: WITH_SESSION ? `s-${i % 64}` : undefined,
        pipelineId: 'bench',
        pipelineVersion: 1,
        mode: 'enforce',
        flags: new Map(),
      },
      exchange,
      state: new build.CallState(),
    })
  }
  return calls
}

const drain = () => new Promise<void>((done) => setImmediate(done))

/** With `node --expose-gc`: collect before each timed loop, so a row pays for its own garbage, not the last row's. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {})

async function timed(run: () => Promise<void>): Promise<number> {
  collect()
  const before = process.cpuUsage()
  await run()
  await drain()
  const spent = process.cpuUsage(before)
  return (spent.user + spent.system) / N
}

/** One round of one build: µs per call of each hook, by row name. */
async function round(build: Build): Promise<Map<string, number>> {
  const rows = new Map<string, number>()
  const calls = newCalls(build, N)
  const hookRows = async (hook: Hook, phase: string, extra: (c: Call) => object) => {
    for (const step of build.steps) {
      const fn = step.instance[hook]
      if (!fn) continue
      const us = await timed(async () => {
        for (const c of calls) {
          const verdict = (await fn.call(
            step.instance,
            context(step.name, phase, c.info, c.exchange, c.state, extra(c)),
          )) as { kind: string } | undefined
          if (verdict && verdict.kind !== 'continue') throw new Error(`${step.name} said ${verdict.kind}`)
        }
      })
      rows.set(`${phase}: ${step.name}`, us)
    }
  }
  await hookRows('onRequest', 'request', () => ({}))
  for (const c of calls) {
    const exchange = c.exchange as { model: string; messages: { parts: { text: string }[] }[] }
    const text =
      exchange.messages
        .at(-1)
        ?.parts.map((p) => p.text)
        .join('') ?? ''
    const body = build.echo({ model: exchange.model, text, tool: false, requestChars: 1200 }) as object
    const answer = build.adapter.parseAnswer(body, c.exchange) as { usage: object }
    c.answer = answer
    c.outcome = { kind: 'success', status: 200, answer, usage: answer.usage, durationMs: 1 }
  }
  await hookRows('onUpstreamOutcome', 'upstream', (c) => ({ provider: 'openai', outcome: c.outcome }))
  await hookRows('onBufferedResponse', 'response', (c) => ({ answer: c.answer }))
  // The host's runner over every outcome hook, on fresh calls that went through the request hooks.
  const again = newCalls(build, N)
  for (const step of build.steps) {
    for (const c of again) {
      await step.instance.onRequest?.call(
        step.instance,
        context(step.name, 'request', c.info, c.exchange, c.state, {}),
      )
    }
  }
  const chain = { steps: build.steps }
  rows.set(
    'runner.outcome (all outcome hooks)',
    await timed(async () => {
      for (const [i, c] of again.entries()) {
        await build.runner.outcome(chain, c.info, c.exchange, c.state, 'openai', calls[i]?.outcome)
      }
    }),
  )
  return rows
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

async function main(): Promise<void> {
  const builds: Build[] = []
  for (const spec of (values.builds as string).split(',')) {
    const [label, dir] = spec.split('=') as [string, string]
    builds.push(await loadBuild(label, dir))
  }
  const results = new Map<string, Map<string, number[]>>()
  // One warm-up round per build, not counted.
  for (const build of builds) await round(build)
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...builds].reverse() : builds
    for (const build of order) {
      const rows = await round(build)
      for (const [row, us] of rows) {
        let byBuild = results.get(row)
        if (!byBuild) {
          byBuild = new Map()
          results.set(row, byBuild)
        }
        byBuild.set(build.label, [...(byBuild.get(build.label) ?? []), us])
      }
    }
  }
  const labels = builds.map((b) => b.label)
  const out: string[] = [
    `# Agentic steps' hooks, CPU µs per call (median of ${ROUNDS} rounds × ${N} calls)`,
    '',
    `${new Date().toISOString()} · commit ${commitLabel()} · ${loadLabel()} · Node ${process.versions.node} · session ${WITH_SESSION ? 'per call' : 'none'}`,
    '',
    `| hook | ${labels.join(' | ')} |${
      labels.length > 1
        ? ` ${labels
            .slice(1)
            .map((l) => `${l} / ${labels[0]}`)
            .join(' | ')} |`
        : ''
    }`,
    `|---|${labels.map(() => '---:').join('|')}|${
      labels.length > 1
        ? `${labels
            .slice(1)
            .map(() => '---:')
            .join('|')}|`
        : ''
    }`,
  ]
  for (const [row, byBuild] of results) {
    const meds = labels.map((l) => median(byBuild.get(l) ?? []))
    const base = meds[0] as number
    const ratios = meds.slice(1).map((m) => (base > 0 ? `${(m / base).toFixed(2)}×` : '—'))
    out.push(
      `| ${row} | ${meds.map((m) => m.toFixed(1)).join(' | ')} |${ratios.length ? ` ${ratios.join(' | ')} |` : ''}`,
    )
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

await main()
