import type {
  HookContext,
  RequestContext,
  ResponseContext,
  SessionState,
  SessionStore,
  StepCounter,
  StepInstance,
  StepServices,
  ToolCallContext,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { TAINT_BLOCKED } from './errors.js'
import {
  type LabelOrigin,
  labelsOfFinding,
  TAINT_LABELS,
  type TaintLabel,
  untrustedResults,
} from './labels.js'
import type { TrackTaintSettings } from './settings.js'
import { compileGlobs, type NameMatcher } from './tool-globs.js'

const STEP = 'track_taint'
const isLabel = (field: string): field is TaintLabel => (TAINT_LABELS as readonly string[]).includes(field)

interface Sink {
  readonly glob: string
  readonly matches: NameMatcher
  readonly labels: readonly TaintLabel[]
}

/**
 * One configured track_taint step. After the detectors of each phase it turns
 * their findings (and results of untrusted tools) into labels, adds each to the
 * session once with its first origin, and grants the labels the session
 * carries to the capability token. A tool call to a sink that may not receive
 * one of those labels is refused. Without `X-Gov-Session` only the labels of
 * the call itself count: nothing accumulates.
 */
export class TrackTaintStep implements StepInstance {
  readonly #sinks: Sink[]
  readonly #untrusted: NameMatcher
  readonly #sessions: SessionStore
  readonly #now: () => number
  readonly #labelsAdded: StepCounter
  readonly #blocks: StepCounter

  constructor(settings: TrackTaintSettings, services: StepServices) {
    this.#sinks = Object.entries(settings.sinks).map(([glob, labels]) => ({
      glob,
      matches: compileGlobs([glob], 'sinks'),
      labels: [...new Set(labels)],
    }))
    this.#untrusted = compileGlobs(settings.untrusted_tools, 'untrusted_tools')
    this.#sessions = services.sessions({ ttlMs: settings.ttl_s * 1000 })
    this.#now = () => services.now()
    this.#labelsAdded = services.metrics.counter(
      'gov_taint_labels_total',
      'Taint labels the track_taint step added to a session (or to a call without a session), by label',
      ['label'],
    )
    this.#blocks = services.metrics.counter(
      'gov_taint_blocks_total',
      'Tool calls the track_taint step refused, by sink glob',
      ['sink'],
    )
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const found = this.#fromFindings(ctx, 'request')
    for (const result of untrustedResults(ctx.exchange.messages, this.#untrusted)) {
      if (found.has('untrusted')) break
      found.set('untrusted', {
        step: STEP,
        type: 'untrusted_tool_result',
        requestId: ctx.call.requestId,
        phase: 'request',
        messageIndex: result.messageIndex,
        tool: result.tool,
        at: this.#now(),
      })
    }
    await this.#record(ctx, found)
    return Verdicts.continue()
  }

  async onBufferedResponse(ctx: ResponseContext): Promise<Verdict> {
    await this.#record(ctx, this.#fromFindings(ctx, 'response'))
    return Verdicts.continue()
  }

  async onToolCall(ctx: ToolCallContext): Promise<Verdict> {
    const sinks = this.#sinks.filter((sink) => sink.matches(ctx.toolCall.name))
    if (sinks.length === 0) return Verdicts.continue()
    // Read the session again: another replica may have added a label since this call's request phase.
    const carried = new Set(this.#callLabels(ctx).keys())
    const session = this.#sessions.of(ctx.call)
    if (session)
      for (const label of Object.keys(await session.entries())) if (isLabel(label)) carried.add(label)
    const hit = TAINT_LABELS.filter(
      (label) => carried.has(label) && sinks.some((s) => s.labels.includes(label)),
    )
    if (hit.length === 0) return Verdicts.continue()
    for (const sink of sinks)
      if (sink.labels.some((l) => hit.includes(l))) this.#blocks.inc({ sink: sink.glob })
    ctx.report({
      type: TAINT_BLOCKED,
      score: 1,
      level: 'public',
      detail: { tool: ctx.toolCall.name, labels: hit, session: session !== undefined },
    })
    return Verdicts.block(
      TAINT_BLOCKED,
      `tool '${ctx.toolCall.name}' may not receive data labelled ${hit.join(', ')}, which this ${session ? 'session' : 'call'} carries`,
    )
  }

  async describeSession(session: SessionState): Promise<Record<string, unknown> | undefined> {
    const labels: Record<string, unknown> = {}
    for (const [label, origin] of Object.entries(await session.entries())) {
      if (!isLabel(label)) continue
      try {
        labels[label] = JSON.parse(origin)
      } catch {
        labels[label] = { unreadable: true }
      }
    }
    return { labels }
  }

  /** Labels the findings of `phase` imply, each with its first origin; this step's own findings do not count. */
  #fromFindings(ctx: HookContext, phase: 'request' | 'response'): Map<TaintLabel, LabelOrigin> {
    const found = new Map<TaintLabel, LabelOrigin>()
    for (const finding of ctx.findings) {
      if (finding.phase !== phase || finding.step === STEP) continue
      for (const label of labelsOfFinding(finding)) {
        if (found.has(label)) continue
        found.set(label, {
          step: finding.step,
          type: finding.type,
          requestId: ctx.call.requestId,
          phase,
          ...(finding.messageIndex === undefined ? {} : { messageIndex: finding.messageIndex }),
          at: this.#now(),
        })
      }
    }
    return found
  }

  #callLabels(ctx: HookContext): Map<TaintLabel, LabelOrigin> {
    let labels = ctx.state.get('labels') as Map<TaintLabel, LabelOrigin> | undefined
    if (!labels) {
      labels = new Map()
      ctx.state.set('labels', labels)
    }
    return labels
  }

  /**
   * Add the labels found to the call and, with a session, to the session: each
   * label field is set once (`setIfAbsent`, atomic on every replica), so the
   * first origin stays. Grants what the session and the call carry.
   */
  async #record(ctx: HookContext, found: Map<TaintLabel, LabelOrigin>): Promise<void> {
    const call = this.#callLabels(ctx)
    const session = this.#sessions.of(ctx.call)
    const carried = new Set<TaintLabel>(call.keys())
    const existing = session ? await session.entries() : {}
    for (const label of Object.keys(existing)) if (isLabel(label)) carried.add(label)
    for (const [label, origin] of found) {
      const newToCall = !call.has(label)
      if (newToCall) call.set(label, origin)
      carried.add(label)
      const added = session
        ? !(label in existing) && (await session.setIfAbsent(label, JSON.stringify(origin)))
        : newToCall
      if (!added) continue
      this.#labelsAdded.inc({ label })
      ctx.report({
        type: 'taint_label_added',
        score: 1,
        level: 'public',
        detail: { label, from_step: origin.step, from_type: origin.type, session: session !== undefined },
      })
    }
    if (carried.size > 0) ctx.grantLabels(carried)
  }
}
