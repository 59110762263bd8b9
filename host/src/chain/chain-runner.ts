import {
  type Answer,
  type CallInfo,
  ErrorCodes,
  type Exchange,
  type Finding,
  type FindingInput,
  type HookContext,
  type Phase,
  type ToolCall,
  type UpstreamOutcome,
  type Verdict,
  Verdicts,
} from '@gov/core'
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
  readonly #stepState = new Map<string, Map<string, unknown>>()

  stateOf(step: string): Map<string, unknown> {
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

/**
 * Runs the hooks of one phase in chain order. Every hook call is wrapped: timed
 * into `gov_step_duration_seconds`, and an exception (or a value that is not a
 * verdict) becomes the step's `on_error` decision — `fail_closed` blocks with
 * GOV_ERR_STEP_FAILED, `fail_open` continues. In observe mode block and respond
 * verdicts are recorded and not acted on. Returns the first enforced verdict
 * that is not `continue`, or `continue`.
 */
export class ChainRunner {
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
    for (const step of chain.steps) {
      if (!step.instance.onUpstreamOutcome) continue
      const ctx = {
        ...this.#context(step, 'upstream', call, exchange, state, undefined, undefined),
        provider,
        outcome,
      }
      const started = performance.now()
      const findingsBefore = state.findings.length
      let error: string | undefined
      try {
        await step.instance.onUpstreamOutcome(
          ctx as Parameters<NonNullable<typeof step.instance.onUpstreamOutcome>>[0],
        )
      } catch (err) {
        error = err instanceof Error ? err.message : String(err)
      }
      const durationMs = performance.now() - started
      this.metrics.stepTimer(step.name, 'upstream').observe(durationMs / 1000)
      const decision: StepDecision = {
        step: step.name,
        phase: 'upstream',
        verdict: 'continue',
        durationMs,
        enforced: true,
        ...(error ? { error } : {}),
      }
      state.decisions.push(decision)
      state.trace?.step(decision, started, state.findings.length - findingsBefore)
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
    for (const step of chain.steps) {
      if (!step.instance[hook]) continue
      const targets: (ToolCall | undefined)[] =
        phase === 'tool_call' ? [...(answer?.message.toolCalls ?? [])] : [undefined]
      for (const toolCall of targets) {
        // A step before this one removed the call from the answer: later steps do not see it.
        if (toolCall && !answer?.message.toolCalls.includes(toolCall)) continue
        const ctx = this.#context(step, phase, call, exchange, state, answer, toolCall)
        const verdict = await this.#invoke(step, hook, ctx, state, call.mode === 'observe')
        if (verdict.kind !== 'continue') return verdict
      }
    }
    return Verdicts.continue()
  }

  #context(
    step: ChainStep,
    phase: Phase,
    call: CallInfo,
    exchange: Exchange,
    state: CallState,
    answer: Answer | undefined,
    toolCall: ToolCall | undefined,
  ): HookContext {
    const findings = state.findings
    return {
      phase,
      call,
      exchange,
      findings,
      state: state.stateOf(step.name),
      report(finding: FindingInput) {
        findings.push({ ...finding, step: step.name, phase })
      },
      grantLabels(labels: Iterable<string>) {
        for (const label of labels) state.labels.add(label)
      },
      ...(answer ? { answer } : {}),
      ...(toolCall ? { toolCall } : {}),
    } as HookContext
  }

  async #invoke(
    step: ChainStep,
    hook: HookName,
    ctx: HookContext,
    state: CallState,
    observe: boolean,
  ): Promise<Verdict> {
    state.stepsRun.add(step.name)
    const started = performance.now()
    const findingsBefore = state.findings.length
    let verdict: Verdict
    let error: string | undefined
    try {
      // biome-ignore lint/suspicious/noExplicitAny: the context matches the hook's phase by construction
      const result = (step.instance[hook] as (ctx: any) => unknown).call(step.instance, ctx)
      const value = result instanceof Promise ? await result : result
      if (!isVerdict(value)) throw new Error(`${hook} returned ${JSON.stringify(value)} instead of a verdict`)
      verdict = value
    } catch (err) {
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
    this.metrics.stepTimer(step.name, ctx.phase).observe(durationMs / 1000)
    const enforced = !observe
    const decision: StepDecision = {
      step: step.name,
      phase: ctx.phase,
      verdict: verdict.kind,
      ...(verdict.kind === 'block' || verdict.kind === 'retry' ? { code: verdict.code } : {}),
      durationMs,
      enforced: verdict.kind === 'continue' ? true : enforced,
      ...(error ? { error } : {}),
    }
    state.decisions.push(decision)
    state.trace?.step(decision, started, state.findings.length - findingsBefore)
    if (verdict.kind === 'block' && enforced)
      this.metrics.pipelineBlocks.inc({ step: step.name, code: verdict.code })
    return enforced ? verdict : Verdicts.continue()
  }
}
