/**
 * The per-phase and per-step table of `npm run bench`, from two scrapes of
 * gov's `/metrics` (before and after a target's load) — no host
 * instrumentation beyond what `/metrics` already exposes:
 * - each step hook: `gov_step_duration_seconds` (wall time the host measures
 *   around the hook, by step and phase);
 * - upstream: `gov_upstream_duration_seconds` (wall, includes the provider's time);
 * - the whole call: `gov_request_duration_seconds` (wall);
 * - CPU: `gov_process_process_cpu_seconds_total` (the whole process, all phases);
 * - each phase of the request walk: `gov_phase_duration_seconds{phase}` (wall
 *   time from entering a phase to entering the next). The step phases are shown
 *   as their hooks plus what the hooks do not account for (the runner, waits).
 * Wall time under load includes waiting for the event loop while other calls
 * run; the CPU row is the only true CPU figure. A gov without the phase
 * histogram gets one "rest" row (the call minus steps and upstream) instead.
 */
import { labelValues, type Sample, total } from './metrics-text.js'

export interface PhaseRow {
  /** What was measured. */
  what: string
  /** `wall` or `cpu`. */
  kind: 'wall' | 'cpu'
  /** Calls of this hook or phase in the interval. */
  count: number
  /** µs per invocation of the hook / phase. */
  perInvocation: number
  /** µs per gateway call (total time ÷ gateway calls): the sum of these rows is the call. */
  perCall: number
}

const STEP = 'gov_step_duration_seconds'
const UPSTREAM = 'gov_upstream_duration_seconds'
const REQUEST = 'gov_request_duration_seconds'
const CPU = 'gov_process_process_cpu_seconds_total'
const PHASE = 'gov_phase_duration_seconds'
/** Walk phases that are not steps, in walk order (host/src/gateway/phase-clock.ts). */
const WALK = ['auth', 'policy', 'parse', 'route', 'token', 'audit', 'write']

function delta(before: readonly Sample[], after: readonly Sample[], name: string, match = {}): number {
  return total(after, name, match) - total(before, name, match)
}

/** Rows for the interval between the scrapes `before` and `after`. */
export function phaseRows(before: readonly Sample[], after: readonly Sample[]): PhaseRow[] {
  const calls = delta(before, after, `${REQUEST}_count`)
  if (calls <= 0) return []
  const rows: PhaseRow[] = []
  const row = (what: string, kind: PhaseRow['kind'], seconds: number, count: number) =>
    rows.push({
      what,
      kind,
      count,
      perInvocation: count > 0 ? (seconds * 1e6) / count : 0,
      perCall: (seconds * 1e6) / calls,
    })
  const requestSeconds = delta(before, after, `${REQUEST}_sum`)
  const withPhases = labelValues(after, `${PHASE}_count`, 'phase').length > 0
  const phaseSeconds = (phase: string) => delta(before, after, `${PHASE}_sum`, { phase })
  const phaseCount = (phase: string) => delta(before, after, `${PHASE}_count`, { phase })
  let stepSeconds = 0
  const hookSeconds: Record<string, number> = {}
  const phases = labelValues(after, `${STEP}_count`, 'phase').sort()
  const steps = labelValues(after, `${STEP}_count`, 'step')
  for (const phase of phases) {
    for (const step of steps) {
      const count = delta(before, after, `${STEP}_count`, { step, phase })
      if (count <= 0) continue
      const seconds = delta(before, after, `${STEP}_sum`, { step, phase })
      stepSeconds += seconds
      hookSeconds[phase] = (hookSeconds[phase] ?? 0) + seconds
      row(`${phase}: ${step}`, 'wall', seconds, count)
    }
  }
  const upstreamSeconds = delta(before, after, `${UPSTREAM}_sum`)
  row(
    'upstream (provider call, incl. provider time)',
    'wall',
    upstreamSeconds,
    delta(before, after, `${UPSTREAM}_count`),
  )
  if (withPhases) {
    // What the hooks of a step phase do not account for: the runner, contexts, event-loop waits.
    const beside = (walkPhase: string, hooks: number) =>
      row(
        `${walkPhase}: besides ${walkPhase === 'upstream' ? 'the provider call and outcome hooks' : 'the hooks'}`,
        'wall',
        phaseSeconds(walkPhase) - hooks,
        phaseCount(walkPhase),
      )
    beside('request_steps', hookSeconds.request ?? 0)
    beside('upstream', upstreamSeconds + (hookSeconds.upstream ?? 0))
    beside('response_steps', (hookSeconds.response ?? 0) + (hookSeconds.tool_call ?? 0))
    for (const phase of WALK) row(`walk: ${phase}`, 'wall', phaseSeconds(phase), phaseCount(phase))
    const walked = labelValues(after, `${PHASE}_count`, 'phase').reduce((sum, p) => sum + phaseSeconds(p), 0)
    row('walk, all phases (gov_phase_duration_seconds; includes audit and write)', 'wall', walked, calls)
  } else {
    row(
      'rest: auth, policy, parse, token, audit, write, event-loop waits',
      'wall',
      requestSeconds - stepSeconds - upstreamSeconds,
      calls,
    )
  }
  row('whole call (gov_request_duration_seconds; ends before audit)', 'wall', requestSeconds, calls)
  row('process CPU, all phases (incl. GC, /metrics)', 'cpu', delta(before, after, CPU), calls)
  return rows
}

/** The rows as a Markdown table. */
export function renderPhaseTable(rows: readonly PhaseRow[]): string {
  const header = ['phase / step', 'time', 'invocations', 'µs per invocation', 'µs per call']
  const body = rows.map((r) => [
    r.what,
    r.kind,
    String(Math.round(r.count)),
    r.perInvocation.toFixed(1),
    r.perCall.toFixed(1),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n')
}
