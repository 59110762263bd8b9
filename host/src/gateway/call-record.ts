import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { type Answer, type CallInfo, type ClassificationLevel, type Exchange, maxLevel } from '@gov/core'
import type { VendorAdapter } from '../adapters/adapter.js'
import type { CallOutcome } from '../agents/activity.js'
import type { Chain } from '../chain/chain.js'
import { CallState } from '../chain/chain-runner.js'
import type { AgentRecord, PipelineRecord } from '../storage/store.js'
import type { Provider } from '../upstream/providers.js'
import { PROVIDER_REQUEST_ID } from '../upstream/upstream-client.js'
import type { HeldStream } from './held-stream.js'
import { PhaseClock, type PhaseTimers } from './phase-clock.js'

/** What the gateway tells observers about a finished call (audit trail, metrics, overview). */
export interface CallSummary {
  readonly call: CallInfo | undefined
  readonly vendor: string
  readonly outcome: CallOutcome
  readonly status: number
  readonly classification: ClassificationLevel
  readonly state: CallState
  readonly chain: Chain | undefined
  readonly durationMs: number
  /** `jti` of the capability token minted for an allowed call; undefined when none was. */
  readonly tokenId: string | undefined
  /** The call's `x-request-id`, also when it failed before `call` was known. */
  readonly requestId?: string
  /** Audit facts known as soon as they are read: the authenticated agent, the model, the SHA-256 of the body. */
  readonly agentId?: string
  readonly model?: string
  readonly requestSha256?: string
  /** The provider's id of its answer (`x-gov-provider-request-id`), when gov called a provider and it sent one. */
  readonly providerRequestId?: string
}

/**
 * One call as the request walk fills it in, phase by phase. Each phase of
 * {@link GatewayHandler} reads what earlier phases set and adds its own part;
 * nothing else holds per-call state.
 */
export class CallRecord {
  readonly requestId = randomUUID()
  readonly started = performance.now()
  readonly state = new CallState()
  /** Response headers: `x-request-id` always, the x-gov headers once known, a step's own (`retry-after`). */
  readonly headers: Record<string, string> = { 'x-request-id': this.requestId }
  outcome: CallOutcome = 'allowed'
  agent: AgentRecord | undefined
  requestSha256: string | undefined
  /** The parsed request body as sent upstream (steps edit it through the Exchange). */
  body: Record<string, unknown> | undefined
  /** The request body's bytes as the caller sent them, and how many object keys they hold (`jsonKeysIn`). */
  bodyBytes: Buffer | undefined
  bodyKeys = -1
  chain: Chain | undefined
  /** The agent's pipeline, or undefined for an agent on the default preset. */
  pipeline: PipelineRecord | undefined
  call: CallInfo | undefined
  exchange: Exchange | undefined
  provider: Provider | undefined
  providerKey: string | undefined
  /** The answer body as it will be written (JSON; re-chunked as SSE for streaming callers). */
  answerBody: Record<string, unknown> | undefined
  answer: Answer | undefined
  /** The provider's bytes of `answerBody` (a JSON answer read whole); undefined once anything else replaced it. */
  answerBytes: Buffer | undefined
  /** True when the answer came from upstream (not from a step's `respond`); a retry needs one. */
  fromUpstream = false
  tokenId: string | undefined
  /** A streamed answer being held back (keep-alives while checks run). */
  held: HeldStream | undefined
  /** True when the session came from a conversation reference, not from `X-Gov-Session`. */
  derivedSession = false

  /** Wall time per phase of the walk (`gov_phase_duration_seconds`); starts in `auth`. */
  readonly phases: PhaseClock

  constructor(
    readonly adapter: VendorAdapter,
    /** The caller's request headers (vendor headers pass upstream). */
    readonly headersIn: IncomingHttpHeaders,
    phaseTimers?: PhaseTimers,
  ) {
    this.phases = new PhaseClock(phaseTimers, this.started)
  }

  /** The highest classification level of any finding so far. */
  get classification(): ClassificationLevel {
    let level: ClassificationLevel = 'public'
    for (const finding of this.state.findings) level = maxLevel(level, finding.level)
    return level
  }

  summary(status: number): CallSummary {
    return {
      call: this.call,
      vendor: this.adapter.vendor,
      outcome: this.outcome,
      status,
      classification: this.classification,
      state: this.state,
      chain: this.chain,
      durationMs: performance.now() - this.started,
      tokenId: this.tokenId,
      requestId: this.requestId,
      // Absent facts are undefined (no spread of a fresh object per fact on the hot path).
      agentId: this.agent?.agent_id,
      model: this.exchange?.model,
      requestSha256: this.requestSha256,
      providerRequestId: this.headers[PROVIDER_REQUEST_ID],
    }
  }
}
