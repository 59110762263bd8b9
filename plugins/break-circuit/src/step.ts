import type {
  HookContext,
  OutcomeContext,
  RequestContext,
  StepCounter,
  StepGauge,
  StepInstance,
  StepServices,
  UpstreamOutcome,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { type Admission, CircuitBoard, CircuitState, type Transition } from './circuit-board.js'
import { circuitId } from './circuit-id.js'
import { CIRCUIT_FINDINGS, CIRCUIT_OPEN } from './errors.js'
import type { BreakCircuitSettings } from './settings.js'

/** Key of the per-call scratch state: this call is the half-open probe. */
const PROBE = 'probe'

/** True when an outcome is the provider's fault: 5xx, timeout, reset, unreachable. A 4xx is the caller's. */
export function isFailure(outcome: UpstreamOutcome): boolean {
  if (outcome.kind === 'success') return false
  if (outcome.reason === 'status') return outcome.status === undefined || outcome.status >= 500
  return true
}

/**
 * One configured break_circuit step. Request phase: refuse calls to a provider
 * and model whose circuit is open (503 `circuit_open` with `retry-after`, no
 * upstream call), or let the one half-open probe through. Outcome phase: count
 * consecutive failures and move the circuit. State lives in the shared
 * key-value store (see {@link CircuitBoard}), so every replica sees one circuit.
 */
export class BreakCircuitStep implements StepInstance {
  readonly #board: CircuitBoard
  readonly #services: StepServices
  readonly #state: StepGauge
  readonly #transitions: StepCounter
  readonly #refusals: StepCounter

  constructor(settings: BreakCircuitSettings, services: StepServices) {
    this.#services = services
    this.#board = new CircuitBoard(services.kv, {
      failureThreshold: settings.failure_threshold,
      windowMs: settings.window_s * 1000,
      openMs: settings.open_s * 1000,
      probeTimeoutMs: settings.probe_timeout_s * 1000,
    })
    this.#state = services.metrics.gauge(
      'gov_circuit_state',
      'Circuit state per provider and model as this replica last saw it: 0 closed, 1 open, 2 half-open',
      ['provider', 'model'],
    )
    this.#transitions = services.metrics.counter(
      'gov_circuit_transitions_total',
      'Circuit state changes: opened, closed, reopened',
      ['provider', 'model', 'transition'],
    )
    this.#refusals = services.metrics.counter(
      'gov_circuit_rejections_total',
      'Calls refused because their circuit was open or half-open with a probe in flight',
      ['provider', 'model'],
    )
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const { exchange, call } = ctx
    const admission = await this.#board.admit(circuitId(exchange), this.#services.now(), call.requestId)
    if (admission.state === 'closed') return Verdicts.continue()
    const labels = { provider: admission.provider, model: exchange.model }
    if (admission.state === 'half_open' && admission.probe) {
      ctx.state.set(PROBE, true)
      this.#state.set(labels, CircuitState.HalfOpen)
      this.#report(ctx, CIRCUIT_FINDINGS.PROBE, admission)
      return Verdicts.continue()
    }
    this.#refusals.inc(labels)
    this.#state.set(labels, admission.state === 'open' ? CircuitState.Open : CircuitState.HalfOpen)
    this.#report(ctx, CIRCUIT_FINDINGS.REFUSED, admission)
    const retryAfter = admission.state === 'open' ? admission.retryAfterS : 1
    const reason =
      admission.state === 'open'
        ? `the circuit for ${admission.provider} model '${exchange.model}' is open after repeated upstream failures; retry in ${retryAfter} s`
        : `the circuit for ${admission.provider} model '${exchange.model}' is half-open and a probe call is in flight; retry in ${retryAfter} s`
    return Verdicts.block(CIRCUIT_OPEN, reason, 503, { 'retry-after': String(retryAfter) })
  }

  async onUpstreamOutcome(ctx: OutcomeContext): Promise<void> {
    const id = circuitId(ctx.exchange)
    const failed = isFailure(ctx.outcome)
    const now = this.#services.now()
    let transition: Transition | undefined
    if (ctx.state.get(PROBE) === true) {
      // A retried call reports a second outcome; only the first is the probe's.
      ctx.state.delete(PROBE)
      transition = await this.#board.probeResult(id, ctx.provider, now, failed)
    } else if (failed) {
      transition = await this.#board.failure(id, ctx.provider, now)
    } else {
      await this.#board.success(id)
    }
    if (!transition) return
    const labels = { provider: ctx.provider, model: ctx.exchange.model }
    this.#transitions.inc({ ...labels, transition })
    this.#state.set(labels, transition === 'closed' ? CircuitState.Closed : CircuitState.Open)
    const type = {
      opened: CIRCUIT_FINDINGS.OPENED,
      closed: CIRCUIT_FINDINGS.CLOSED,
      reopened: CIRCUIT_FINDINGS.REOPENED,
    }[transition]
    ctx.report({
      type,
      score: 1,
      level: 'public',
      detail: {
        provider: ctx.provider,
        model: ctx.exchange.model,
        ...(ctx.outcome.kind === 'failure'
          ? { reason: ctx.outcome.reason, ...(ctx.outcome.status ? { status: ctx.outcome.status } : {}) }
          : {}),
      },
    })
  }

  #report(ctx: HookContext, type: string, admission: Exclude<Admission, { state: 'closed' }>) {
    ctx.report({
      type,
      score: 1,
      level: 'public',
      detail: {
        provider: admission.provider,
        model: ctx.exchange.model,
        state: admission.state,
        ...(admission.state === 'open' ? { retry_after_s: admission.retryAfterS } : {}),
      },
    })
  }
}
