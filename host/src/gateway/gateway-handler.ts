import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  type Answer,
  type BlockVerdict,
  type Exchange,
  GovError,
  type Mode,
  type RespondVerdict,
  type UpstreamFailureReason,
  type Verdict,
  Verdicts,
} from '@gov/core'
import type { VendorAdapter } from '../adapters/adapter.js'
import { requestUnchanged } from '../adapters/tool-ops.js'
import type { AgentService } from '../agents/agent-service.js'
import { sha256Hex } from '../audit/digest.js'
import type { Authorizer } from '../auth/authorizer.js'
import { extractKey, sameKey } from '../auth/credentials.js'
import type { Chain } from '../chain/chain.js'
import type { ChainBuilder } from '../chain/chain-builder.js'
import type { ChainRunner } from '../chain/chain-runner.js'
import type { GovConfig } from '../config.js'
import { bytesMeanValue, jsonKeysIn, parseJsonCounted, readBody } from '../http/body.js'
import { sendJson, sendJsonBytes, toGovError } from '../http/respond.js'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { PipelineService } from '../pipelines/pipeline-service.js'
import type { SecretSource } from '../secrets/secret-source.js'
import type { AgentRecord, PipelineRecord } from '../storage/store.js'
import { grantOf } from '../tokens/capability-claims.js'
import type { MintedToken, TokenService } from '../tokens/token-service.js'
import type { CallTracer } from '../tracing/call-tracer.js'
import type { Provider, ProviderRouter } from '../upstream/providers.js'
import type { CallerSignal, UpstreamClient, UpstreamResponse } from '../upstream/upstream-client.js'
import { CallRecord, type CallSummary } from './call-record.js'
import { applyContentPolicy } from './content-policy.js'
import type { ConversationSessions } from './conversation-sessions.js'
import { applyFlags, parseFlags } from './flags.js'
import { Phase } from './phase-clock.js'
import { streamFor } from './windowed-stream.js'

export type { CallSummary } from './call-record.js'

const SESSION_ID = /^[\x21-\x7e]{1,256}$/
/** How long a call waits for a chain whose steps are still loading (e.g. NER models). */
const READY_WAIT_MS = 60_000

export interface GatewayDeps {
  config: GovConfig
  logger: Logger
  metrics: GovMetrics
  agents: AgentService
  pipelines: PipelineService
  chains: ChainBuilder
  runner: ChainRunner
  authorizer: Authorizer
  providers: ProviderRouter
  upstream: UpstreamClient
  secrets: SecretSource
  /** Mints the `x-gov-token` of allowed calls and counts refused ones. */
  tokens: TokenService
  /** Every flag name some loaded plugin declares, plus `mode`. */
  knownFlags: () => ReadonlySet<string>
  /** Records a finished call (activity, metrics, log, audit) before its answer is released. */
  record: (summary: CallSummary) => Promise<void>
  /** Throws `audit_unavailable` when the audit trail cannot record now (checked before paying the provider). */
  auditWritable: () => void
  /** Sessions of conversations the provider holds (Responses API). */
  conversations: ConversationSessions
  /** OpenTelemetry spans of each call; absent when tracing is off (nothing is traced or loaded). */
  tracer?: CallTracer
}

/** Thrown inside the walk to answer the caller early with a coded error. */
class Refusal extends GovError {
  constructor(
    code: string,
    message: string,
    status: number,
    /** Response headers a step asked for (e.g. `retry-after`). */
    readonly headers?: Readonly<Record<string, string>>,
    /** True when a step's verdict refused the call (counted as a denied token). */
    readonly byStep = false,
  ) {
    super(code, message, status)
  }
}

/** A step's block verdict as a refusal of the call. */
function refusalOf(verdict: Pick<BlockVerdict, 'code' | 'reason' | 'status' | 'headers'>): Refusal {
  return new Refusal(verdict.code, verdict.reason, verdict.status ?? 403, verdict.headers, true)
}

/**
 * The request walk of the model endpoints, top to bottom over one
 * {@link CallRecord}:
 *
 *   authenticate → read and parse the body → resolve the agent's chain → bind
 *   the call (flags, mode, session, Exchange) → route and authorise (model,
 *   provider, provider key) → request hooks → upstream (+ outcome hooks) →
 *   response and tool-call hooks (one bounded retry) → token → record → write.
 *
 * A call that will be refused for who it is or what it asks never reaches a
 * step. Every refusal, wherever it happens, goes through {@link #fail}; every
 * answer through {@link #finish}, which records the call before a byte leaves.
 */
export class GatewayHandler {
  constructor(private readonly deps: GatewayDeps) {}

  async handle(adapter: VendorAdapter, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rec = new CallRecord(adapter, req.headers, this.deps.metrics.phaseTimers)
    if (this.deps.tracer) rec.state.trace = this.deps.tracer.startCall(adapter.vendor, req.headers)
    // Cached lookups answer without a promise; the walk awaits only what really has to wait.
    try {
      const agent = this.authenticate(req)
      rec.agent = isPromise(agent) ? await agent : agent
      rec.phases.enter(Phase.parse)
      this.#keepBody(rec, await readBody(req, this.deps.config.maxBodyBytes))
      rec.phases.enter(Phase.route)
      const chain = this.#resolveChain(rec)
      rec.chain = isPromise(chain) ? await chain : chain
      rec.phases.enter(Phase.parse)
      const bound = this.#bindCall(rec, req)
      if (bound) await bound
      const routed = this.#route(rec)
      if (routed) await routed
      if (rec.exchange?.stream)
        rec.held = streamFor(rec, res, this.deps.runner, this.deps.config.streamKeepAliveMs)
      rec.phases.enter(Phase.request_steps)
      // A chain without steps has no hooks to run: no promise or microtask for them.
      const verdict = hasSteps(rec) ? await this.#run(rec, 'request') : Verdicts.continue()
      rec.phases.enter(Phase.upstream)
      if (verdict.kind === 'respond') this.#takeReadyAnswer(rec, verdict)
      else await this.#callUpstream(rec, res, rec.body as Record<string, unknown>)
      rec.phases.enter(Phase.response_steps)
      // A chain without steps has no response or tool-call hooks: the answer stands as parsed.
      if (hasSteps(rec)) await this.#governAnswer(rec, res)
      else if (!rec.answer) this.#parseAnswer(rec)
      if (rec.held) await rec.held.settle(rec.answerBody)
      rec.phases.enter(Phase.token)
      const minted = this.#mintToken(rec)
      if (minted) await minted
      await this.#finish(rec, res, 200)
    } catch (err) {
      await this.#fail(rec, res, err)
    }
    rec.phases.end()
  }

  // ── phases ────────────────────────────────────────────────────────────

  /**
   * The agent of a request's key; a coded 401/403 refusal otherwise (also used
   * by the other /v1 routes, which await it). Without a promise when the key's
   * lookup is cached; throws the refusals it can tell at once.
   */
  authenticate(req: IncomingMessage): AgentRecord | Promise<AgentRecord> {
    if (!this.deps.authorizer.loaded) {
      throw new Refusal('no_policy', 'no authorization policy is loaded: every request is refused', 403)
    }
    const key = extractKey(req.headers)
    if (!key)
      throw new Refusal('unauthorized', 'missing API key: send Authorization: Bearer <agent key>', 401)
    const agent = this.deps.agents.byKeyNow(key)
    return isPromise(agent) ? agent.then((found) => this.#agentOrRefusal(found, key)) : agent
  }

  #agentOrRefusal(agent: AgentRecord | undefined, key: string): AgentRecord {
    if (agent) return agent
    if (sameKey(key, this.deps.config.adminApiKey)) {
      throw new Refusal('forbidden', 'the admin key cannot call models; use an agent key', 403)
    }
    throw new Refusal('unauthorized', 'invalid API key', 401)
  }

  /** The request body read whole: its hash, its parse and key count (awaited in `handle`: no async function of its own). */
  #keepBody(rec: CallRecord, raw: Buffer): void {
    // The audit trail keeps this hash, never the prompt text.
    rec.requestSha256 = sha256Hex(raw)
    const parsed = parseJsonCounted(raw, true, this.deps.config.maxJsonDepth)
    rec.body = parsed.value as Record<string, unknown>
    rec.bodyBytes = raw
    rec.bodyKeys = parsed.keys
  }

  /** The agent's chain, without a promise when its pipeline is cached and its chain built and ready. */
  #resolveChain(rec: CallRecord): Chain | Promise<Chain> {
    const agent = rec.agent as NonNullable<CallRecord['agent']>
    const pipeline = agent.pipeline_id ? this.deps.pipelines.findNow(agent.pipeline_id) : undefined
    if (isPromise(pipeline)) return pipeline.then((found) => this.#chainOf(rec, found))
    return this.#chainOf(rec, pipeline)
  }

  #chainOf(rec: CallRecord, pipeline: PipelineRecord | undefined): Chain | Promise<Chain> {
    rec.pipeline = pipeline
    const chain = this.deps.chains.getNow(pipeline, this.deps.config.defaultPreset)
    if (!isPromise(chain) && chain.isReady) return chain
    return this.#whenReady(chain)
  }

  async #whenReady(pending: Chain | Promise<Chain>): Promise<Chain> {
    const chain = await pending
    if (!chain.isReady) await this.#waitReady(chain)
    return chain
  }

  /**
   * Flags, mode and session; then the Exchange (over a copy in observe mode, so
   * nothing edited leaves). A promise only when deriving the session needs a
   * stored lookup.
   */
  #bindCall(rec: CallRecord, req: IncomingMessage): Promise<void> | undefined {
    const chain = rec.chain as Chain
    const { mode, flags } = applyFlags(parseFlags(req.headers['x-gov-flags']), chain, this.deps.knownFlags)
    const session = req.headers['x-gov-session']
    if (session !== undefined && (typeof session !== 'string' || !SESSION_ID.test(session))) {
      throw new Refusal('invalid_session', 'X-Gov-Session must be 1–256 printable ASCII characters', 400)
    }
    if (session === undefined && rec.body) {
      // A conversation continued by reference or by its history (conversation-sessions.ts).
      const derived = this.deps.conversations.derive(
        (rec.agent as NonNullable<CallRecord['agent']>).agent_id,
        rec.adapter.vendor,
        rec.body,
        rec.requestId,
      )
      if (isPromise(derived))
        return derived.then((found) => {
          rec.derivedSession = found !== undefined
          this.#bindExchange(rec, chain, mode, flags, found)
        })
      rec.derivedSession = derived !== undefined
      this.#bindExchange(rec, chain, mode, flags, derived)
      return undefined
    }
    this.#bindExchange(rec, chain, mode, flags, session)
    return undefined
  }

  #bindExchange(
    rec: CallRecord,
    chain: Chain,
    mode: Mode,
    flags: ReadonlyMap<string, string>,
    session: string | undefined,
  ): void {
    rec.call = {
      requestId: rec.requestId,
      agentId: (rec.agent as NonNullable<CallRecord['agent']>).agent_id,
      sessionId: session,
      pipelineId: chain.pipelineId,
      pipelineVersion: chain.version,
      mode,
      flags,
    }
    rec.exchange = rec.adapter.parseRequest(mode === 'observe' ? structuredClone(rec.body) : rec.body)
    // Content gov cannot read: recorded; refused where the pipeline says so.
    applyContentPolicy(
      rec.exchange,
      rec.pipeline?.content,
      (f) => rec.state.findings.push(f),
      mode !== 'observe',
    )
  }

  /**
   * May this agent call this model, which provider serves it, and is its key
   * there? Before any step runs. A promise only when the key is not at hand
   * in the secret source's cache.
   */
  #route(rec: CallRecord): Promise<void> | undefined {
    const exchange = rec.exchange as Exchange
    const agent = rec.agent as NonNullable<CallRecord['agent']>
    rec.phases.enter(Phase.policy)
    if (!this.deps.authorizer.authorize({ kind: 'agent', agent }, 'gateway:call', exchange.model)) {
      throw new Refusal('forbidden', `agent ${agent.agent_id} may not call model ${exchange.model}`, 403)
    }
    rec.phases.enter(Phase.route)
    const provider = this.deps.providers.route(rec.adapter.vendor, exchange.model)
    const cached = this.deps.secrets.cached?.(provider.keyName)
    if (cached) {
      rec.provider = provider
      rec.providerKey = cached
      return undefined
    }
    return this.#routeWithKey(rec, provider)
  }

  async #routeWithKey(rec: CallRecord, provider: Provider): Promise<void> {
    const key = await this.deps.secrets.get(provider.keyName)
    if (!key)
      throw new Refusal(
        'provider_not_configured',
        `${provider.keyName} is not set; gov cannot call ${provider.name}`,
        502,
      )
    rec.provider = provider
    rec.providerKey = key
  }

  /** Run one phase's hooks; a block becomes a refusal, anything else is returned. */
  async #run(rec: CallRecord, phase: 'request' | 'response' | 'tool_call'): Promise<Verdict> {
    const verdict = await this.deps.runner.run(
      rec.chain as Chain,
      phase,
      rec.call as NonNullable<CallRecord['call']>,
      rec.exchange as Exchange,
      rec.state,
      rec.answer,
    )
    if (verdict.kind === 'block') throw refusalOf(verdict)
    if (verdict.kind === 'retry' && phase === 'request') throw refusalOf(verdict)
    return verdict
  }

  /** A step answered in the request phase: its answer replaces the upstream call. */
  #takeReadyAnswer(rec: CallRecord, verdict: RespondVerdict): void {
    const exchange = rec.exchange as Exchange
    rec.answerBody =
      'text' in verdict.answer
        ? rec.adapter.buildTextAnswer(verdict.answer.text, exchange)
        : structuredClone(verdict.answer.body)
    rec.answerBytes = undefined
    Object.assign(rec.headers, verdict.headers)
    rec.fromUpstream = false
  }

  /**
   * Send `body` upstream, read the whole answer (streams too), tell the
   * outcome hooks, and keep the answer body. A provider error status is passed
   * to the caller as it came.
   */
  async #callUpstream(rec: CallRecord, res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    const provider = rec.provider as NonNullable<CallRecord['provider']>
    // An answer that could not be recorded would be discarded: do not pay the provider for it.
    this.deps.auditWritable()
    const started = performance.now()
    let upstream: UpstreamResponse
    try {
      upstream = await this.#send(rec, res, body)
    } catch (err) {
      const reason = failureReason(err)
      if (reason)
        await this.#outcome(rec, { kind: 'failure', reason, durationMs: performance.now() - started })
      throw err
    }
    const durationMs = performance.now() - started
    if (upstream.status < 200 || upstream.status >= 300) {
      await this.#outcome(rec, { kind: 'failure', reason: 'status', status: upstream.status, durationMs })
      throw new ProviderError(upstream)
    }
    const text = upstream.body.toString('utf8')
    const sse = upstream.contentType.includes('text/event-stream')
    let answerBody: Record<string, unknown>
    try {
      answerBody = sse ? rec.adapter.reassembleStream(text) : parseUpstreamJson(text)
    } catch (err) {
      await this.#outcome(rec, { kind: 'failure', reason: 'status', status: 502, durationMs })
      throw err
    }
    rec.answerBody = answerBody
    rec.answerBytes = sse ? undefined : upstream.body
    rec.fromUpstream = true
    try {
      this.#parseAnswer(rec)
    } catch (err) {
      await this.#outcome(rec, { kind: 'failure', reason: 'status', status: 502, durationMs })
      throw err
    }
    const answer = rec.answer as Answer
    if (hasSteps(rec))
      await this.#outcome(rec, {
        kind: 'success',
        status: upstream.status,
        answer,
        usage: answer.usage,
        durationMs,
      })
    this.deps.metrics.upstreamTimer(provider.name, String(upstream.status)).observe(durationMs / 1000)
  }

  /** Not an async function: the client's promise itself, wrapped only when a span must hear how it ended. */
  #send(rec: CallRecord, res: ServerResponse, body: Record<string, unknown>): Promise<UpstreamResponse> {
    // The caller hung up: stop paying for the provider's answer.
    const callerGone = new CallerGone(res)
    const provider = rec.provider as NonNullable<CallRecord['provider']>
    const headers = rec.adapter.upstreamHeaders(rec.headersIn, rec.providerKey as string)
    // Traced: the upstream span's traceparent goes to the provider.
    const span = rec.state.trace?.upstream(provider, (rec.exchange as Exchange).model, headers)
    let sent: Promise<UpstreamResponse>
    try {
      sent = this.deps.upstream.send(
        provider,
        headers,
        this.#requestPayload(rec, body),
        callerGone,
        rec.held?.upstreamSink(),
        // The provider's request id joins the answer's headers before a byte of a stream leaves.
        rec.headers,
      )
    } catch (err) {
      span?.failed(err)
      return Promise.reject(err)
    }
    if (!span) return sent
    return sent.then(
      (upstream) => {
        span.answered(upstream.status)
        return upstream
      },
      (err: unknown) => {
        span.failed(err)
        throw err
      },
    )
  }

  /**
   * What goes upstream for `body`: the caller's own bytes when `body` is the
   * request as parsed, nothing could have edited it, and the bytes mean exactly
   * what gov read ({@link bytesMeanValue}); else its JSON. Nothing could have
   * edited it when the pipeline has no steps, runs in observe mode, or no step
   * edited a text part, narrowed the tools or took the writable body
   * ({@link requestUnchanged}). Saves serialising the request on most calls:
   * on turn 50 of a conversation that is ~100 KB of JSON.
   */
  #requestPayload(rec: CallRecord, body: Record<string, unknown>): string | Buffer {
    const bytes = rec.bodyBytes
    if (
      bytes !== undefined &&
      body === rec.body &&
      (untouched(rec) || requestUnchanged(rec.exchange as Exchange)) &&
      bytesMeanValue(bytes, rec.bodyKeys, body)
    )
      return bytes
    return JSON.stringify(body)
  }

  async #outcome(rec: CallRecord, outcome: Parameters<ChainRunner['outcome']>[5]): Promise<void> {
    await this.deps.runner.outcome(
      rec.chain as Chain,
      rec.call as NonNullable<CallRecord['call']>,
      rec.exchange as Exchange,
      rec.state,
      (rec.provider as NonNullable<CallRecord['provider']>).name,
      outcome,
    )
  }

  /** The Answer over the answer body (over a copy in observe mode). */
  #parseAnswer(rec: CallRecord): void {
    const body = rec.answerBody as Record<string, unknown>
    const observe = rec.call?.mode === 'observe'
    rec.answer = rec.adapter.parseAnswer(observe ? structuredClone(body) : body, rec.exchange as Exchange)
  }

  /**
   * Response hooks, then tool-call hooks. A `retry` verdict asks the provider
   * once more with the step's feedback (only for an answer that came from
   * upstream); a second one refuses the call with the verdict's code.
   */
  async #governAnswer(rec: CallRecord, res: ServerResponse): Promise<void> {
    if (!rec.answer) this.#parseAnswer(rec)
    for (let retried = false; ; retried = true) {
      const answer = rec.answer as Answer
      const refusedText = answerText(answer)
      let verdict = hasSteps(rec) ? await this.#run(rec, 'response') : Verdicts.continue()
      if (verdict.kind === 'continue' && hasSteps(rec) && answer.message.toolCalls.length > 0) {
        verdict = await this.#run(rec, 'tool_call')
      }
      if (verdict.kind === 'retry') {
        if (retried || !rec.fromUpstream) throw refusalOf(verdict)
        const body = rec.adapter.withFeedback(
          rec.body as Record<string, unknown>,
          refusedText,
          verdict.feedback,
        )
        await this.#callUpstream(rec, res, body)
        continue
      }
      // A step edited the answer: drop copies of its text no step saw (logprobs, citations).
      if (rec.call?.mode === 'enforce' && answer.message.parts.some((p) => p.edited)) {
        rec.adapter.dropUnscannedText(rec.answerBody as Record<string, unknown>)
        rec.answerBytes = undefined
      }
      if (verdict.kind === 'respond') this.#takeReadyAnswer(rec, verdict)
      return
    }
  }

  /** The call's token (after remembering a derived session); a promise only when something must be waited for. */
  #mintToken(rec: CallRecord): Promise<void> | undefined {
    if (rec.derivedSession && rec.call?.sessionId) {
      return this.deps.conversations
        .remember(
          rec.call.agentId,
          rec.adapter.vendor,
          rec.body as Record<string, unknown>,
          rec.answerBody,
          rec.call.sessionId,
          (rec.exchange as Exchange).tools.map((tool) => tool.name),
        )
        .then(() => this.#mintGrant(rec))
    }
    return this.#mintGrant(rec)
  }

  #mintGrant(rec: CallRecord): Promise<void> | undefined {
    const exchange = rec.exchange as Exchange
    // A turn of a held thread sends no tools; the provider uses the thread's (conversation-sessions.ts).
    const held =
      exchange.tools.length === 0 && rec.body ? this.deps.conversations.heldTools(rec.body) : undefined
    const grant = grantOf({
      call: rec.call as NonNullable<CallRecord['call']>,
      chain: rec.chain as Chain,
      exchange: held ? { ...exchange, tools: held.map((name) => ({ name })) } : exchange,
      state: rec.state,
      classification: rec.classification,
    })
    // A session derived afresh for this call names its request id: no other call has this grant.
    const reusable = !(rec.derivedSession && grant.sessionId?.endsWith(rec.requestId))
    const minted = this.deps.tokens.mintNow(grant, reusable)
    if (minted === undefined)
      return this.deps.tokens.mint(grant, reusable).then((later) => keepToken(rec, later))
    keepToken(rec, minted)
    return undefined
  }

  /** Record the call, then write the answer: JSON, or the same answer re-chunked as SSE. */
  async #finish(rec: CallRecord, res: ServerResponse, status: number): Promise<void> {
    if (!(await this.#record(rec, res, status))) return
    const body = rec.answerBody as Record<string, unknown>
    const exchange = rec.exchange as Exchange
    if (exchange.stream) {
      const sse = rec.adapter.toSse(body, rec.adapter.sseOptions(exchange))
      if (rec.held?.open) return rec.held.finish(sse, rec.headers)
      rec.held?.stop()
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'content-length': String(Buffer.byteLength(sse)),
        ...rec.headers,
      })
      res.end(sse)
      return
    }
    // The provider's own bytes when nothing could have changed the answer and they mean what gov read.
    const bytes = rec.answerBytes
    if (
      bytes !== undefined &&
      untouched(rec) &&
      bytesMeanValue(bytes, jsonKeysIn(bytes, this.deps.config.maxJsonDepth), body)
    )
      sendJsonBytes(res, status, bytes, rec.headers)
    else sendJson(res, status, body, rec.headers)
  }

  /** Every refusal and error: recorded, then answered in the caller's vendor format. */
  async #fail(rec: CallRecord, res: ServerResponse, err: unknown): Promise<void> {
    delete rec.headers['x-gov-token']
    rec.held?.stop()
    if (err instanceof ProviderError) {
      rec.outcome = 'error'
      const upstream = err.upstream
      if (!(await this.#record(rec, res, upstream.status))) return
      if (rec.held?.open) {
        return rec.held.fail(upstream.status, 'upstream_error', `the provider answered ${upstream.status}`)
      }
      // The body goes on as the provider sent it, with its retry hints, its encoding and (in rec.headers) its request id.
      res.writeHead(upstream.status, {
        ...upstream.passOn,
        'content-type': upstream.contentType || 'application/json',
        'content-length': String(upstream.body.length),
        ...rec.headers,
      })
      res.end(upstream.body)
      return
    }
    const e = toGovError(err)
    rec.state.trace?.refused(e.code)
    if (!(err instanceof GovError))
      this.deps.logger.error({ err, requestId: rec.requestId }, 'gateway call failed')
    rec.outcome = e.status >= 500 ? 'error' : 'blocked'
    if (err instanceof Refusal && err.byStep) this.deps.tokens.countRefusedCall()
    if (err instanceof Refusal && err.headers) Object.assign(rec.headers, err.headers)
    if (!(await this.#record(rec, res, e.status))) return
    if (rec.held?.open) return rec.held.fail(e.status, e.code, e.message)
    sendJson(res, e.status, rec.adapter.errorBody(e.status, e.code, e.message), rec.headers)
  }

  /**
   * Record the call before its answer leaves. When the record cannot be
   * written (audit trail down), answer the failure instead and return false:
   * an unrecorded answer is never released.
   */
  async #record(rec: CallRecord, res: ServerResponse, status: number): Promise<boolean> {
    if (rec.chain) {
      rec.headers['x-gov-classification'] = rec.classification
      rec.headers['x-gov-pipeline-steps'] = String(rec.state.stepsRun.size)
    }
    rec.phases.enter(Phase.audit)
    try {
      await this.deps.record(rec.summary(status))
      rec.state.trace?.end(rec, status)
      rec.phases.enter(Phase.write)
      return true
    } catch (err) {
      const e = toGovError(err)
      rec.state.trace?.end(rec, e.status, e.code)
      rec.phases.enter(Phase.write)
      delete rec.headers['x-gov-token']
      rec.held?.stop()
      if (rec.held?.open) rec.held.fail(e.status, e.code, e.message)
      else sendJson(res, e.status, rec.adapter.errorBody(e.status, e.code, e.message), rec.headers)
      return false
    }
  }

  async #waitReady(chain: Chain): Promise<void> {
    try {
      await Promise.race([
        chain.ready,
        new Promise<never>((_, reject) => {
          AbortSignal.timeout(READY_WAIT_MS).addEventListener('abort', () =>
            reject(new Refusal('not_ready', 'governance steps are still loading; retry shortly', 503)),
          )
        }),
      ])
    } catch (err) {
      if (err instanceof GovError) throw err
      throw new Refusal('not_ready', `a governance step failed to load: ${(err as Error).message}`, 503)
    }
  }
}

/**
 * The caller's side of an upstream call: aborted when the response closes
 * before its answer was written (the caller hung up). One listener on the
 * response while the upstream call runs, instead of an `AbortController` per call.
 */
class CallerGone implements CallerSignal {
  aborted = false
  #listener: (() => void) | undefined
  readonly #onClose = () => {
    if (this.res.writableFinished || this.aborted) return
    this.aborted = true
    this.#listener?.()
  }

  constructor(private readonly res: ServerResponse) {}

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listener = listener
    this.res.on('close', this.#onClose)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.#listener !== listener) return
    this.#listener = undefined
    this.res.off('close', this.#onClose)
  }
}

/** True when the call's chain has steps (hooks to run). */
function hasSteps(rec: CallRecord): boolean {
  return (rec.chain as Chain).steps.length > 0
}

/**
 * True when no step can have edited the request or answer bodies of this call:
 * its chain has no steps, or it runs in observe mode (steps see copies).
 */
function untouched(rec: CallRecord): boolean {
  return rec.call?.mode === 'observe' || (rec.chain as Chain).steps.length === 0
}

/** A provider's own error answer, passed to the caller with its status and body. */
class ProviderError extends Error {
  constructor(readonly upstream: UpstreamResponse) {
    super(`provider answered ${upstream.status}`)
  }
}

/** Why an upstream call failed, for the outcome hooks; undefined when it is not the provider's doing (the caller left). */
function failureReason(err: unknown): UpstreamFailureReason | undefined {
  const code = (err as { code?: string }).code
  if (code === 'upstream_timeout') return 'timeout'
  if (code === 'upstream_unreachable') {
    return /ECONNRESET|UND_ERR_SOCKET|EPIPE|other side closed/i.test((err as Error).message)
      ? 'reset'
      : 'unreachable'
  }
  if (code === 'client_closed') return undefined
  return err instanceof GovError && err.status >= 500 ? 'status' : undefined
}

function parseUpstreamJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text)
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value
  } catch {}
  throw new Refusal('upstream_invalid_response', 'the provider answered with a body that is not JSON', 502)
}

/** The text of an answer before any response step edits it (the feedback turn of a retry quotes it). */
function answerText(answer: Answer): string {
  let text = ''
  for (const part of answer.message.parts) if (part.kind === 'text') text += part.text
  return text
}

/** True for a promise (any thenable), false for a value at hand: the hot path awaits only the former. */
function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/** The minted token goes out in `x-gov-token`; its id into the call's record. */
function keepToken(rec: CallRecord, minted: MintedToken): void {
  rec.headers['x-gov-token'] = minted.token
  rec.tokenId = minted.id
}
