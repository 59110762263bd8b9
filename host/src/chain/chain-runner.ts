import {
  type Answer,
  type CallInfo,
  ErrorCodes,
  type Exchange,
  type Finding,
  type FindingInput,
  type HookContext,
  type OutcomeContext,
  type Phase,
  type ToolCall,
  type UpstreamOutcome,
  type Verdict,
  Verdicts,
} from '@gov/core'
import type { HistogramChild } from '../metrics/lean-histogram.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { CallTrace } from '../tracing/call-tracer.js'
import type { Chain, ChainStep } from './chain.js'

/** What one hook call decided, for logs, the audit trail and metrics. */
export interface StepDecision {
  readonly step: string
  readonly phase: Phase
  readonly verdict: Verdict['kind']
  readonly code?: string
  readonly durationMs: number
  /** False when the verdict was only recorded (observe mode). */
  readonly enforced: boolean
  /** Set when the hook threw; the message of the error. */
  readonly error?: string
}

/** Per-call state carried across the phases of one call. */
export class CallState {
  readonly findings: Finding[] = []
  readonly decisions: StepDecision[] = []
  readonly stepsRun = new Set<string>()
  /** Labels steps granted for the capability token (`ctx.grantLabels`). */
  readonly labels = new Set<string>()
  /** The call's trace when tracing is on (host/src/tracing): told of every hook call. */
  trace: CallTrace | undefined
  /** Made on the first {@link stateOf} (a call without steps reads none). */
  #stepState: Map<string, Map<string, unknown>> | undefined

  stateOf(step: string): Map<string, unknown> {
    this.#stepState ??= new Map()
    let state = this.#stepState.get(step)
    if (!state) {
      state = new Map()
      this.#stepState.set(step, state)
    }
    return state
  }
}

function isVerdict(value: unknown): value is Verdict {
  const kind = (value as Verdict | undefined)?.kind
  return kind === 'continue' || kind === 'block' || kind === 'respond' || kind === 'retry'
}

type VerdictPhase = Exclude<Phase, 'upstream'>
type HookName = 'onRequest' | 'onBufferedResponse' | 'onToolCall'
const HOOK: Record<VerdictPhase, HookName> = {
  request: 'onRequest',
  response: 'onBufferedResponse',
  tool_call: 'onToolCall',
}

/** `ctx.report` of one step in one phase: the host fills in `step` and `phase`. */
function reporter(findings: Finding[], step: string, phase: Phase): (finding: FindingInput) => void {
  return (finding) => {
    findings.push({ ...finding, step, phase })
  }
}

/** `ctx.grantLabels`: labels for the call's capability token. */
function labelGranter(state: CallState): (labels: Iterable<string>) => void {
  return (labels) => {
    for (const label of labels) state.labels.add(label)
  }
}

/**
 * A hook's context. `state` is a getter of the class, so a step's state map is
 * made only when the hook reads it; an accessor written in an object literal
 * instead cost a runtime call (~4 k instructions) per context, 19 contexts
 * per call of preset `standard`. `report` and `grantLabels` stay own
 * functions, so a hook may call them detached.
 */
class StepContext {
  readonly findings: readonly Finding[]
  readonly report: (finding: FindingInput) => void
  readonly grantLabels: (labels: Iterable<string>) => void
  readonly #callState: CallState
  readonly #step: string

  constructor(
    readonly phase: Phase,
    readonly call: CallInfo,
    readonly exchange: Exchange,
    callState: CallState,
    step: string,
  ) {
    this.findings = callState.findings
    this.report = reporter(callState.findings, step, phase)
    this.grantLabels = labelGranter(callState)
    this.#callState = callState
    this.#step = step
  }

  get state(): Map<string, unknown> {
    return this.#callState.stateOf(this.#step)
  }
}

/** The context of a response hook: the answer too. */
class AnswerStepContext extends StepContext {
  constructor(
    phase: Phase,
    call: CallInfo,
    exchange: Exchange,
    callState: CallState,
    step: string,
    readonly answer: Answer,
  ) {
    super(phase, call, exchange, callState, step)
  }
}

/** The context of a tool-call hook: the answer and the tool call. */
class ToolCallStepContext extends AnswerStepContext {
  constructor(
    call: CallInfo,
    exchange: Exchange,
    callState: CallState,
    step: string,
    answer: Answer,
    readonly toolCall: ToolCall,
  ) {
    super('tool_call', call, exchange, callState, step, answer)
  }
}

/** The context of an outcome hook: the provider and what it did. */
class OutcomeStepContext extends StepContext {
  declare readonly phase: 'upstream'

  constructor(
    call: CallInfo,
    exchange: Exchange,
    callState: CallState,
    step: string,
    readonly provider: string,
    readonly outcome: UpstreamOutcome,
  ) {
    super('upstream', call, exchange, callState, step)
  }
}

/**
 * Runs the hooks of one phase in chain order. Every hook call is wrapped: timed
 * into `gov_step_duration_seconds`, and an exception (or a value that is not a
 * verdict) becomes the step's `on_error` decision — `fail_closed` blocks with
 * GOV_ERR_STEP_FAILED, `fail_open` continues. In observe mode block and respond
 * verdicts are recorded and not acted on. Returns the first enforced verdict
 * that is not `continue`, or `continue`.
 */
export class ChainRunner {
  /** Step timers by step (chain steps live as long as their chain) and phase. */
  readonly #timers = new WeakMap<ChainStep, Partial<Record<Phase, HistogramChild>>>()

  constructor(private readonly metrics: GovMetrics) {}

  /**
   * Tell every step with `onUpstreamOutcome` what the provider did. Observing
   * only: a hook that throws is recorded as a decision with its error and the
   * call goes on (a circuit breaker or cost tracker must never fail the answer).
   */
  async outcome(
    chain: Chain,
    call: CallInfo,
    exchange: Exchange,
    state: CallState,
    provider: string,
    outcome: UpstreamOutcome,
  ): Promise<void> {
    const findings = state.findings
    for (const step of chain.steps) {
      const hook = step.instance.onUpstreamOutcome
      if (!hook) continue
      const name = step.name
      const ctx: OutcomeContext = new OutcomeStepContext(call, exchange, state, name, provider, outcome)
      const started = performance.now()
      const findingsBefore = findings.length
      let error: string | undefined
      try {
        await hook.call(step.instance, ctx)
      } catch (err) {
        error = err instanceof Error ? err.message : String(err)
      }
      const durationMs = performance.now() - started
      this.#timer(step, 'upstream').observe(durationMs / 1000)
      const decision = makeDecision(name, 'upstream', 'continue', undefined, durationMs, true, error)
      state.decisions.push(decision)
      state.trace?.step(decision, started, findings.length - findingsBefore)
    }
  }

  async run(
    chain: Chain,
    phase: VerdictPhase,
    call: CallInfo,
    exchange: Exchange,
    state: CallState,
    answer?: Answer,
  ): Promise<Verdict> {
    const hook = HOOK[phase]
    const observe = call.mode === 'observe'
    for (const step of chain.steps) {
      if (!step.instance[hook]) continue
      if (phase !== 'tool_call') {
        const ctx = this.#context(step, phase, call, exchange, state, answer, undefined)
        const settled = this.#invoke(step, hook, ctx, state, observe)
        const verdict = settled instanceof Promise ? await settled : settled
        if (verdict.kind !== 'continue') return verdict
        continue
      }
      const targets = [...(answer?.message.toolCalls ?? [])]
      for (const toolCall of targets) {
        // A step before this one removed the call from the answer: later steps do not see it.
        if (!answer?.message.toolCalls.includes(toolCall)) continue
        const ctx = this.#context(step, phase, call, exchange, state, answer, toolCall)
        const settled = this.#invoke(step, hook, ctx, state, observe)
        const verdict = settled instanceof Promise ? await settled : settled
        if (verdict.kind !== 'continue') return verdict
      }
    }
    return Verdicts.continue()
  }

  /**
   * The hook's context, one of three classes (`answer` and `toolCall` are
   * present only when given, as the phase's context type says). `state` is a
   * getter on the class: a step's state map is made on first use, not for
   * every step of every call.
   */
  #context(
    step: ChainStep,
    phase: Phase,
    call: CallInfo,
    exchange: Exchange,
    state: CallState,
    answer: Answer | undefined,
    toolCall: ToolCall | undefined,
  ): HookContext {
    if (!answer) return new StepContext(phase, call, exchange, state, step.name)
    if (!toolCall) return new AnswerStepContext(phase, call, exchange, state, step.name, answer)
    return new ToolCallStepContext(call, exchange, state, step.name, answer, toolCall)
  }

  /** `gov_step_duration_seconds{step, phase}` of a step, looked up once per step and phase. */
  #timer(step: ChainStep, phase: Phase): HistogramChild {
    let timers = this.#timers.get(step)
    if (!timers) {
      timers = {}
      this.#timers.set(step, timers)
    }
    let timer = timers[phase]
    if (!timer) {
      timer = this.metrics.stepTimer(step.name, phase)
      timers[phase] = timer
    }
    return timer
  }

  /**
   * Call one hook and record its decision. A hook that answers synchronously
   * is settled synchronously (no promise of the runner's own per hook); one
   * that returns a promise is settled when it does.
   */
  #invoke(
    step: ChainStep,
    hook: HookName,
    ctx: HookContext,
    state: CallState,
    observe: boolean,
  ): Verdict | Promise<Verdict> {
    state.stepsRun.add(step.name)
    const started = performance.now()
    const findingsBefore = state.findings.length
    let result: unknown
    try {
      // biome-ignore lint/suspicious/noExplicitAny: the context matches the hook's phase by construction
      result = (step.instance[hook] as (ctx: any) => unknown).call(step.instance, ctx)
    } catch (err) {
      return this.#settle(step, hook, ctx, state, observe, started, findingsBefore, undefined, true, err)
    }
    if (!(result instanceof Promise))
      return this.#settle(step, hook, ctx, state, observe, started, findingsBefore, result, false, undefined)
    return result.then(
      (value) =>
        this.#settle(step, hook, ctx, state, observe, started, findingsBefore, value, false, undefined),
      (err) => this.#settle(step, hook, ctx, state, observe, started, findingsBefore, undefined, true, err),
    )
  }

  /**
   * The decision on a hook's answer (`value`) or its failure (`failed`: it
   * threw or rejected with `thrown`): timed, recorded, and the verdict the
   * call acts on.
   */
  #settle(
    step: ChainStep,
    hook: HookName,
    ctx: HookContext,
    state: CallState,
    observe: boolean,
    started: number,
    findingsBefore: number,
    value: unknown,
    failed: boolean,
    thrown: unknown,
  ): Verdict {
    let verdict: Verdict
    let error: string | undefined
    if (!failed && isVerdict(value)) {
      verdict = value
    } else {
      let err = thrown
      if (!failed) {
        try {
          err = new Error(`${hook} returned ${JSON.stringify(value)} instead of a verdict`)
        } catch (stringifyError) {
          // A value JSON cannot write (a cycle, a BigInt): its error is the step's error, as it always was.
          err = stringifyError
        }
      }
      error = err instanceof Error ? err.message : String(err)
      verdict =
        step.onError === 'fail_open'
          ? Verdicts.continue()
          : Verdicts.block(
              ErrorCodes.STEP_FAILED,
              `governance step ${step.name} failed and is set to fail closed`,
              500,
            )
    }
    const durationMs = performance.now() - started
    const phase = ctx.phase
    this.#timer(step, phase).observe(durationMs / 1000)
    const enforced = !observe
    const kind = verdict.kind
    const decision = makeDecision(
      step.name,
      phase,
      kind,
      kind === 'block' || kind === 'retry' ? verdict.code : undefined,
      durationMs,
      kind === 'continue' ? true : enforced,
      error,
    )
    state.decisions.push(decision)
    state.trace?.step(decision, started, state.findings.length - findingsBefore)
    if (kind === 'block' && enforced) this.metrics.pipelineBlocks.inc({ step: step.name, code: verdict.code })
    return enforced ? verdict : Verdicts.continue()
  }
}

/**
 * A decision record with the keys in the order they always had (`code` after
 * `verdict`, `error` last), each optional key present only when set: log lines
 * and anything that lists the keys see the same objects as before. Four
 * literal shapes instead of conditional spreads.
 */
function makeDecision(
  step: string,
  phase: Phase,
  verdict: Verdict['kind'],
  code: string | undefined,
  durationMs: number,
  enforced: boolean,
  error: string | undefined,
): StepDecision {
  if (code === undefined) {
    return error
      ? { step, phase, verdict, durationMs, enforced, error }
      : { step, phase, verdict, durationMs, enforced }
  }
  return error
    ? { step, phase, verdict, code, durationMs, enforced, error }
    : { step, phase, verdict, code, durationMs, enforced }
}
