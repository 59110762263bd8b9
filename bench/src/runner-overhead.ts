/**
 * What the host's ChainRunner itself costs per call, with hooks that do
 * nothing: `outcome` over the `standard` chain's three outcome hooks
 * (break_circuit, track_cost, dedupe; empty async functions), and `run` of the
 * request phase over eleven hooks returning `continue` (the seven that await
 * something as async functions, the others synchronous). CPU µs per call
 * (user + system, `process.cpuUsage`), medians of alternating rounds, for one
 * or more host builds side by side:
 *
 *   node --expose-gc bench/dist/src/runner-overhead.js \
 *     --builds before=bench/results/baseline/host/dist/src,after=host/dist/src
 *
 * A build is a host `dist/src` folder (default: this tree's). Whatever these
 * rows show is spent between and around hooks — contexts, timing, decision
 * records, per-step state — on every call of a `standard` pipeline.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Verdicts } from '@gov/core'
import { buildsOptions, buildsTable } from './builds-table.js'

const { builds: BUILDS, rounds: ROUNDS, n: N } = buildsOptions()

const STEPS = [
  'break_circuit',
  'guard_loops',
  'filter_tools',
  'detect_injection',
  'scan_secrets',
  'detect_pii',
  'detect_business',
  'track_taint',
  'constrain_output',
  'track_cost',
  'dedupe',
]
/** Steps of `standard` with an outcome hook; steps whose request hook awaits (key-value store, sessions). */
const OUTCOME = new Set(['break_circuit', 'track_cost', 'dedupe'])
const ASYNC = new Set(['break_circuit', 'guard_loops', 'track_taint', 'track_cost', 'dedupe'])

type Fn = (...args: unknown[]) => Promise<unknown>
interface Build {
  label: string
  runner: { outcome: Fn; run: Fn }
  CallState: new () => object
}

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {})

async function loadBuild(label: string, dir: string): Promise<Build> {
  const url = (path: string) => pathToFileURL(resolve(dir, path)).href
  const runner = (await import(url('chain/chain-runner.js'))) as Record<string, unknown>
  const metrics = (await import(url('metrics/metrics.js'))) as Record<string, unknown>
  const Metrics = metrics.GovMetrics as new () => object
  const Runner = runner.ChainRunner as new (m: object) => Build['runner']
  return { label, runner: new Runner(new Metrics()), CallState: runner.CallState as Build['CallState'] }
}

const call = {
  requestId: 'r',
  agentId: 'bench-agent',
  sessionId: undefined,
  pipelineId: 'bench',
  pipelineVersion: 1,
  mode: 'enforce',
  flags: new Map(),
}
const exchange = { model: 'gpt-4o-mini' }
const outcome = { kind: 'success', status: 200, answer: {}, usage: {}, durationMs: 1 }
const outcomeChain = {
  steps: STEPS.map((name) => ({
    name,
    onError: 'fail_closed',
    instance: OUTCOME.has(name) ? { async onUpstreamOutcome() {} } : {},
  })),
}
const requestChain = {
  steps: STEPS.map((name) => ({
    name,
    onError: 'fail_closed',
    instance: { onRequest: ASYNC.has(name) ? async () => Verdicts.continue() : () => Verdicts.continue() },
  })),
}

async function cpuPerCall(build: Build, run: (state: object) => Promise<unknown>): Promise<number> {
  const states = Array.from({ length: N }, () => new build.CallState())
  collect()
  const before = process.cpuUsage()
  for (const state of states) await run(state)
  const spent = process.cpuUsage(before)
  return (spent.user + spent.system) / N
}

async function main(): Promise<void> {
  const builds: Build[] = []
  for (const [label, dir] of BUILDS) {
    builds.push(await loadBuild(label, dir))
  }
  const rows: Record<string, (b: Build) => (state: object) => Promise<unknown>> = {
    'outcome: 3 empty hooks of 11 steps': (b) => (state) =>
      b.runner.outcome(outcomeChain, call, exchange, state, 'openai', outcome),
    'run(request): 11 hooks returning continue': (b) => (state) =>
      b.runner.run(requestChain, 'request', call, exchange, state),
  }
  const results = new Map<string, Map<string, number[]>>()
  for (let r = -1; r < ROUNDS; r++) {
    for (const build of r % 2 ? [...builds].reverse() : builds) {
      for (const [row, make] of Object.entries(rows)) {
        const us = await cpuPerCall(build, make(build))
        if (r < 0) continue // warm-up
        const byBuild = results.get(row) ?? new Map<string, number[]>()
        results.set(row, byBuild)
        byBuild.set(build.label, [...(byBuild.get(build.label) ?? []), us])
      }
    }
  }
  const labels = builds.map((b) => b.label)
  process.stdout.write(
    buildsTable(
      `# ChainRunner overhead, CPU µs per call (median of ${ROUNDS} rounds × ${N} calls)`,
      labels,
      results,
      1,
    ),
  )
}

await main()
