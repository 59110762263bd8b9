import type { Static, TSchema } from 'typebox'
import type { Answer, Exchange, ToolCall, Usage } from './exchange.js'
import type { Finding, FindingInput, Phase } from './finding.js'
import type { StepServices } from './services.js'
import type { SessionState } from './session.js'
import type { Verdict } from './verdict.js'

/** Governance mode of a call. In `observe` every step runs and is recorded, nothing is blocked or changed. */
export type Mode = 'enforce' | 'observe'

/** Facts about the call that every hook sees. */
export interface CallInfo {
  /** Unique id of this call (also in logs and the audit trail). */
  readonly requestId: string
  readonly agentId: string
  /** From `X-Gov-Session`; undefined when the caller sent none. */
  readonly sessionId: string | undefined
  /** The agent's pipeline, or undefined when the agent has none assigned. */
  readonly pipelineId: string | undefined
  readonly pipelineVersion: number
  readonly mode: Mode
  /**
   * `X-Gov-Flags` the host accepted for this call (`name → value`). A flag that
   * would relax governance appears only when the pipeline allows it.
   */
  readonly flags: ReadonlyMap<string, string>
}

/** What every hook gets. */
export interface HookContext {
  readonly phase: Phase
  readonly call: CallInfo
  readonly exchange: Exchange
  /** Findings reported so far in this call, by every step and phase, in order. */
  readonly findings: readonly Finding[]
  /** Report a finding; the host fills in `step` and `phase`. */
  report(finding: FindingInput): void
  /**
   * Scratch state of this step for this call, kept from `onRequest` to
   * `onBufferedResponse` and `onToolCall` (e.g. the placeholders a mask used).
   */
  readonly state: Map<string, unknown>
  /**
   * Labels the capability token of this call carries (its `labels` claim), for
   * tool servers to act on — e.g. the session's taint (`pii`, `untrusted`).
   */
  grantLabels(labels: Iterable<string>): void
}

/** Context of `onRequest`. */
export interface RequestContext extends HookContext {
  readonly phase: 'request'
}

/** Why an upstream call failed: an error status, no answer in time, the connection reset, or no connection. */
export type UpstreamFailureReason = 'status' | 'timeout' | 'reset' | 'unreachable'

/** What came back from the provider: every upstream call, failures included. */
export type UpstreamOutcome =
  | {
      readonly kind: 'success'
      readonly status: number
      /** The provider's answer as received, before any response step ran. */
      readonly answer: Answer
      readonly usage: Usage | undefined
      readonly durationMs: number
    }
  | {
      readonly kind: 'failure'
      readonly reason: UpstreamFailureReason
      /** The provider's HTTP status when it answered with an error. */
      readonly status?: number
      readonly durationMs: number
    }

/**
 * Context of `onUpstreamOutcome`: called after every upstream call (a retry
 * too), before the response phase. It observes: it returns nothing and cannot
 * block (a step that wants to refuse the answer does so in `onBufferedResponse`).
 */
export interface OutcomeContext extends HookContext {
  readonly phase: 'upstream'
  /** The provider the call went to (`openai`, `anthropic`, …). */
  readonly provider: string
  readonly outcome: UpstreamOutcome
}

/** Context of `onBufferedResponse`: the complete answer (streamed answers are reassembled first). */
export interface ResponseContext extends HookContext {
  readonly phase: 'response'
  readonly answer: Answer
}

/** Context of `onToolCall`: called once per tool call in the answer. */
export interface ToolCallContext extends HookContext {
  readonly phase: 'tool_call'
  readonly answer: Answer
  readonly toolCall: ToolCall
}

/** Result of a hook. */
export type HookResult = Verdict | Promise<Verdict>

/**
 * What `onBufferedResponse` needs to see to decide (used by the host's windowed
 * stream release): `prefix` — a verdict or edit on a prefix of the answer text
 * holds for the whole answer, so the hook may also run on prefixes (with
 * scratch findings and state) before the text is released; `whole` — only the
 * complete answer can be judged (a JSON schema, a length limit), so the call is
 * held back until the end; `record` — the hook neither edits nor refuses the
 * answer (it only records), so it runs once on the whole answer. Undeclared
 * means `whole`.
 */
export type AnswerScope = 'prefix' | 'whole' | 'record'

/** One configured step in one pipeline. Built once per pipeline version and reused for every call. */
export interface StepInstance {
  /** Resolves when the step can serve (e.g. a model finished loading). `/health/startup` waits for it. */
  ready?(): Promise<void>
  onRequest?(ctx: RequestContext): HookResult
  /** Every upstream result, failures included (circuit breaking, cost). Errors it throws are logged, never fail the call. */
  onUpstreamOutcome?(ctx: OutcomeContext): void | Promise<void>
  onBufferedResponse?(ctx: ResponseContext): HookResult
  /** Overrides the plugin's {@link StepPlugin.answerScope} for this configured instance (settings may decide). */
  readonly answerScope?: AnswerScope
  onToolCall?(ctx: ToolCallContext): HookResult
  /**
   * What this step keeps about a session, for admins (`GET /sessions/{agent}/{session}`):
   * a JSON-safe summary, never raw sensitive values. Omit when the step keeps nothing to show.
   */
  describeSession?(session: SessionState): Promise<Record<string, unknown> | undefined>
  /**
   * What this step keeps about an agent across sessions, for admins, as named
   * sections (`{ spend: {...} }` is what `GET /agents/{id}/spend` returns). JSON-safe.
   */
  describeAgent?(agentId: string): Promise<Record<string, unknown> | undefined>
  /** Release resources when the pipeline version is replaced. */
  close?(): void | Promise<void>
}

/**
 * A caller flag the step understands. `values` are ordered from least to most
 * strict; the host lets a caller pick a stricter value than the pipeline's
 * setting, and a looser one only when the pipeline allows that flag.
 */
export interface FlagDeclaration {
  /** The setting the flag overrides per call. */
  readonly setting: string
  /** Allowed values, least strict first. */
  readonly values: readonly string[]
}

/** A governance step, shipped as an npm package whose default export is this object. */
export interface StepPlugin<S extends TSchema = TSchema> {
  /** Step name as pipelines use it, snake_case: `detect_pii`. */
  readonly name: string
  /** npm package name; generated from package.json. */
  readonly packageName: string
  /** Package version; generated from package.json, never typed by hand. */
  readonly version: string
  /** Semver range of @gov/core this step supports, e.g. `^0.1.0`. */
  readonly core: string
  /** One line on what the step does. */
  readonly description: string
  /** Settings schema (typebox) with defaults; validated when a pipeline is created. */
  readonly settings: S
  /** What `onBufferedResponse` judges: see {@link AnswerScope}; undeclared means `whole`. */
  readonly answerScope?: AnswerScope
  /** Caller flags the step reads from `ctx.call.flags`. */
  readonly flags?: Readonly<Record<string, FlagDeclaration>>
  /** Build an instance for one pipeline version with validated settings. */
  create(settings: Static<S>, services: StepServices): StepInstance | Promise<StepInstance>
}

/** Identity helper that types `settings` in `create` from the schema. */
export function defineStep<S extends TSchema>(plugin: StepPlugin<S>): StepPlugin<S> {
  return plugin
}
