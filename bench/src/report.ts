/**
 * The tables of `npm run bench`, from the interleaved rounds (src/rounds.ts
 * has the arithmetic): throughput and its paired ratios, process CPU per call
 * and its paired ratios, unloaded latency, and every round with what the
 * machine was doing meanwhile (noise flags).
 */
import type { LoadResult, LoadRun } from './load-worker.js'
import type { CoreTimes } from './proc-stat.js'
import { pairedRatios, ratioAt, type Slot, type Spread, spread } from './rounds.js'

export const DIRECT = 'direct'
export const BARE = 'bare proxy'

/** One measured run of one target in one round, in the order the runs were taken. */
export interface Measurement {
  /** The target's display name. */
  target: string
  /** 1-based. */
  round: number
  run: LoadRun
  /** The round's unmeasured warm-up run just before (for its failures). */
  warmup?: LoadRun
  /** Seconds between the two CPU readings around the run (the runner's clock). */
  wallSeconds: number
  /** CPU seconds of the target's own process during the run (for `direct`, the mock's). */
  cpu?: number
  /** CPU seconds of the mock provider during the run; undefined for `direct`, where the mock is the target. */
  mockCpu?: number
  /** CPU seconds of the load generator during the run. */
  loadCpu?: number
  /** The servers' core during the run (all processes on it). */
  core?: CoreTimes
}

/** What one target gave before the rounds. */
export interface TargetSetup {
  name: string
  description: string
  warmup: { requests: number; non2xx: number; errors: number }
  unloaded: LoadResult['unloaded']
}

/** Shares of the servers' core during one run, 0–1. */
export interface CoreShares {
  /** The target and the mock (the processes measured). */
  ours: number
  /** Everything else that ran on the core: other processes (and the runner if it was scheduled there). */
  others: number
  idle: number
  steal: number
}

/** Above these a round is flagged. */
export const NOISE_LIMITS = {
  /** Load generator busy for this share of the run's wall time: it, not the target, may be the limit. */
  generatorBusy: 0.9,
  /** Other processes on the servers' core. */
  others: 0.1,
  /** The servers' core idle although the target was loaded: something else limited the throughput. */
  idle: 0.1,
  /** Hypervisor steal on the servers' core. */
  steal: 0.05,
}

const us = (seconds: number | undefined, calls: number) =>
  seconds !== undefined && calls > 0 ? (seconds * 1e6) / calls : Number.NaN

/** The target's own process CPU µs per answered call (for `direct`, the mock's). */
export function cpuPerCall(m: Measurement): number {
  return us(m.cpu, m.run.requests)
}

/** CPU µs per answered call of everything measured on the servers' core: the target plus the mock provider. */
export function coreCpuPerCall(m: Measurement): number {
  if (m.cpu === undefined) return Number.NaN
  return us(m.cpu + (m.mockCpu ?? 0), m.run.requests)
}

/** How the servers' core was shared during the run; undefined without /proc. */
export function coreShares(m: Measurement): CoreShares | undefined {
  const c = m.core
  if (!c || m.cpu === undefined) return undefined
  const all = c.busy + c.idle + c.steal
  if (all <= 0) return undefined
  const ours = m.cpu + (m.mockCpu ?? 0)
  return {
    ours: ours / all,
    others: Math.max(0, c.busy - ours) / all,
    idle: c.idle / all,
    steal: c.steal / all,
  }
}

/** Failed requests of a run: non-2xx answers, errors, timeouts. */
export function runFailures(r: LoadRun | undefined): number {
  return r ? r.non2xx + r.errors + r.timeouts : 0
}

/** Why a run's numbers may not be the target's own: each flag names what was seen. */
export function noiseFlags(m: Measurement): string[] {
  const flags: string[] = []
  const failed = runFailures(m.run) + runFailures(m.warmup)
  if (failed > 0) flags.push(`${failed} failed requests`)
  if (m.loadCpu !== undefined && m.wallSeconds > 0 && m.loadCpu / m.wallSeconds >= NOISE_LIMITS.generatorBusy)
    flags.push(`load generator saturated (${pct(m.loadCpu / m.wallSeconds)} busy)`)
  const shares = coreShares(m)
  if (shares) {
    if (shares.others >= NOISE_LIMITS.others) flags.push(`others took ${pct(shares.others)} of core`)
    if (shares.steal >= NOISE_LIMITS.steal) flags.push(`steal ${pct(shares.steal)}`)
    if (shares.idle >= NOISE_LIMITS.idle) flags.push(`server core ${pct(shares.idle)} idle`)
  }
  return flags
}

/** Everything one target's rounds give. */
export interface TargetSummary {
  name: string
  rps: Spread
  /** req/s ÷ the bare proxy's around it, per round. */
  rpsVsBare: Spread
  rpsVsDirect: Spread
  /** Own process CPU µs per call. */
  cpu: Spread
  /** Own process CPU per call ÷ the bare proxy's around it, per round (> 1: gov spends more). */
  cpuVsBare: Spread
  /** Target + mock CPU µs per call on the servers' core. */
  coreCpu: Spread
  /** The bare proxy's core CPU per call ÷ the target's, per round: the req/s ratio a core to itself would give. */
  cpuImpliedVsBare: Spread
  p50: Spread
  p99: Spread
  requests: number
  failures: number
  flaggedRounds: number
}

const slots = (sequence: readonly Measurement[], value: (m: Measurement) => number): Slot[] =>
  sequence.map((m) => ({ target: m.target, value: value(m) }))

/** Per target, in the order they first appear in `sequence`. */
export function summarize(sequence: readonly Measurement[]): TargetSummary[] {
  const names = [...new Set(sequence.map((m) => m.target))]
  const rps = slots(sequence, (m) => m.run.requestsPerSecond)
  const cpu = slots(sequence, cpuPerCall)
  // Calls per second of the core's CPU: the inverse of core CPU per call, so its ratio reads like req/s's.
  const capacity = slots(sequence, (m) => 1e6 / coreCpuPerCall(m))
  return names.map((name) => {
    const own = sequence.filter((m) => m.target === name)
    return {
      name,
      rps: spread(own.map((m) => m.run.requestsPerSecond)),
      rpsVsBare: spread(pairedRatios(rps, name, BARE)),
      rpsVsDirect: spread(pairedRatios(rps, name, DIRECT)),
      cpu: spread(own.map(cpuPerCall)),
      cpuVsBare: spread(pairedRatios(cpu, name, BARE)),
      coreCpu: spread(own.map(coreCpuPerCall)),
      cpuImpliedVsBare: spread(pairedRatios(capacity, name, BARE)),
      p50: spread(own.map((m) => m.run.p50)),
      p99: spread(own.map((m) => m.run.p99)),
      requests: own.reduce((sum, m) => sum + m.run.requests, 0),
      failures: own.reduce((sum, m) => sum + runFailures(m.run) + runFailures(m.warmup), 0),
      flaggedRounds: own.filter((m) => noiseFlags(m).length > 0).length,
    }
  })
}

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const signed = (n: number, digits: number) => (n >= 0 ? `+${fixed(n, digits)}` : fixed(n, digits))
const times = (n: number) => (Number.isFinite(n) ? `${fixed(n)}×` : '')
const pct = (share: number) => `${Math.round(share * 100)} %`

/** `0.55× (0.50–0.61)`: median and range; one value alone when there is one round. */
export function ratioCell(s: Spread, suffix = '×'): string {
  if (s.n === 0) return ''
  const median = `${fixed(s.median)}${suffix}`
  return s.n === 1 ? median : `${median} (${fixed(s.min)}–${fixed(s.max)})`
}

function numberCell(s: Spread, digits = 0): string {
  if (s.n === 0) return 'n/a'
  return s.n === 1
    ? fixed(s.median, digits)
    : `${fixed(s.median, digits)} (${fixed(s.min, digits)}–${fixed(s.max, digits)})`
}

/** A Markdown table (it reads fine in a terminal too). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

/** Throughput per target: median req/s over the rounds and the paired ratios (median, min–max). */
export function renderThroughputTable(summaries: readonly TargetSummary[]): string {
  return markdownTable(
    [
      'target',
      'req/s, median (min–max)',
      'req/s vs bare, paired',
      'req/s vs direct, paired',
      'p50 ms',
      'p99 ms',
      'errors + non-2xx',
      'flagged rounds',
    ],
    summaries.map((s) => [
      s.name,
      numberCell(s.rps),
      s.name === BARE || s.name === DIRECT ? '' : ratioCell(s.rpsVsBare),
      s.name === DIRECT ? '' : ratioCell(s.rpsVsDirect),
      fixed(s.p50.median, 0),
      fixed(s.p99.median, 0),
      String(s.failures),
      `${s.flaggedRounds} of ${s.rps.n}`,
    ]),
  )
}

/** CPU per call per target from the same rounds, and its paired ratios to the bare proxy. */
export function renderCpuTable(summaries: readonly TargetSummary[]): string {
  return markdownTable(
    [
      'target',
      'process CPU µs per call',
      'CPU per call vs bare, paired',
      'core CPU µs per call (+ mock)',
      'req/s vs bare implied by core CPU, paired',
    ],
    summaries.map((s) => [
      s.name === DIRECT ? `${s.name} (the mock itself)` : s.name,
      numberCell(s.cpu),
      s.name === BARE || s.name === DIRECT ? '' : ratioCell(s.cpuVsBare),
      numberCell(s.coreCpu),
      s.name === BARE ? '' : ratioCell(s.cpuImpliedVsBare),
    ]),
  )
}

/** Unloaded latency per target (one request at a time, before the rounds). */
export function renderUnloadedTable(setups: readonly TargetSetup[]): string {
  const direct = setups.find((t) => t.name === DIRECT)?.unloaded
  return markdownTable(
    ['target', 'unloaded p50 ms', 'unloaded p99 ms', 'unloaded +ms vs direct'],
    setups.map(({ name, unloaded: u }) => [
      name,
      fixed(u.p50, 3),
      fixed(u.p99, 3),
      name === DIRECT || !direct ? '' : signed(u.p50 - direct.p50, 3),
    ]),
  )
}

/** Every run in the order taken, with the servers' core shares and the noise flags. */
export function renderRoundsTable(sequence: readonly Measurement[]): string {
  const rps = slots(sequence, (m) => m.run.requestsPerSecond)
  const cpu = slots(sequence, cpuPerCall)
  return markdownTable(
    [
      'round',
      'target',
      'req/s',
      'vs bare',
      'CPU µs/call',
      'CPU vs bare',
      'mock µs/call',
      'core: ours / others / idle / steal',
      'generator busy',
      'flags',
    ],
    sequence.map((m, i) => {
      const shares = coreShares(m)
      const isBare = m.target === BARE
      return [
        String(m.round),
        m.target,
        fixed(m.run.requestsPerSecond, 0),
        isBare ? '' : times(ratioAt(rps, i, BARE)),
        fixed(cpuPerCall(m), 0),
        isBare || m.target === DIRECT ? '' : times(ratioAt(cpu, i, BARE)),
        m.target === DIRECT ? '' : fixed(us(m.mockCpu, m.run.requests), 0),
        shares
          ? `${pct(shares.ours)} / ${pct(shares.others)} / ${pct(shares.idle)} / ${pct(shares.steal)}`
          : 'n/a',
        m.loadCpu !== undefined && m.wallSeconds > 0 ? pct(m.loadCpu / m.wallSeconds) : 'n/a',
        noiseFlags(m).join('; '),
      ]
    }),
  )
}
