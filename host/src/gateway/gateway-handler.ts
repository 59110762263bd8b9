import { createHash, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  type Answer,
  type CallInfo,
  type ClassificationLevel,
  type Exchange,
  GovError,
  maxLevel,
  type Verdict,
} from '@gov/core'
import type { VendorAdapter } from '../adapters/adapter.js'
import type { AgentActivity, CallOutcome } from '../agents/activity.js'
import type { AgentService } from '../agents/agent-service.js'
import type { Authorizer } from '../auth/authorizer.js'
import { extractKey, sameKey } from '../auth/credentials.js'
import type { Chain } from '../chain/chain.js'
import type { ChainBuilder } from '../chain/chain-builder.js'
import { CallState, type ChainRunner } from '../chain/chain-runner.js'
import type { GovConfig } from '../config.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson, toGovError } from '../http/respond.js'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { PipelineService } from '../pipelines/pipeline-service.js'
import type { SecretSource } from '../secrets/secret-source.js'
import { grantOf } from '../tokens/capability-claims.js'
import type { TokenService } from '../tokens/token-service.js'
import type { ProviderRouter } from '../upstream/providers.js'
import type { UpstreamClient } from '../upstream/upstream-client.js'
import { applyFlags, parseFlags } from './flags.js'

const SESSION_ID = /^[\x21-\x7e]{1,256}$/
/** How long a call waits for a chain whose steps are still loading (e.g. NER models). */
const READY_WAIT_MS = 60_000

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
}

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
  activity: AgentActivity
  /** Mints the `x-gov-token` of allowed calls and counts refused ones. */
  tokens: TokenService
  /** Every flag name some loaded plugin declares, plus `mode`. */
  knownFlags: () => ReadonlySet<string>
  /** Called once per finished call, before its answer is released. */
  onCall?: (summary: CallSummary) => Promise<void> | void
}

/** Thrown inside the walk to answer the caller early with a coded error. */
class Refusal extends GovError {}

/**
 * The request walk of `POST /v1/chat/completions` and `POST /v1/messages`:
 * authenticate → authorize → read flags and session → parse the body into an
 * Exchange → resolve the agent's chain → onRequest → upstream (whole stream
 * read) → onBufferedResponse and onToolCall → write JSON or re-chunked SSE with
 * the x-gov headers. Vendor differences live in the adapter.
 */
export class GatewayHandler {
  constructor(private readonly deps: GatewayDeps) {}

  async handle(adapter: VendorAdapter, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now()
    const state = new CallState()
    const requestId = randomUUID()
    let call: CallInfo | undefined
    let chain: Chain | undefined
    let outcome: CallOutcome = 'allowed'
    let tokenId: string | undefined
    const facts: { agentId?: string; model?: string; requestSha256?: string } = {}
    const headers: Record<string, string> = { 'x-request-id': requestId }
    const finish = async (status: number, write: () => void) => {
      const classification = this.#classification(state)
      if (chain) {
        headers['x-gov-classification'] = classification
        headers['x-gov-pipeline-steps'] = String(state.stepsRun.size)
      }
      const durationMs = performance.now() - started
      if (call) this.deps.activity.record(call.agentId, outcome, state.findings.length > 0)
      this.deps.metrics.requestDuration.observe({ vendor: adapter.vendor, outcome }, durationMs / 1000)
      try {
        await this.deps.onCall?.({
          call,
          vendor: adapter.vendor,
          outcome,
          status,
          classification,
          state,
          chain,
          durationMs,
          tokenId,
          requestId,
          ...facts,
        })
      } catch (err) {
        // The call could not be recorded (audit trail down): fail closed, never release an unrecorded answer.
        const e = toGovError(err)
        delete headers['x-gov-token']
        sendJson(res, e.status, adapter.errorBody(e.status, e.code, e.message), headers)
        return
      }
      write()
    }
    const fail = async (err: unknown) => {
      const e = toGovError(err)
      if (!(err instanceof GovError)) this.deps.logger.error({ err, requestId }, 'gateway call failed')
      if (outcome === 'allowed') outcome = e.status >= 500 ? 'error' : 'blocked'
      await finish(e.status, () =>
        sendJson(res, e.status, adapter.errorBody(e.status, e.code, e.message), headers),
      )
    }

    try {
      if (!this.deps.authorizer.loaded) {
        throw new Refusal('no_policy', 'no authorization policy is loaded: every request is refused', 403)
      }
      const agent = await this.#authenticate(req)
      facts.agentId = agent.agent_id
      const raw = await readBody(req, this.deps.config.maxBodyBytes)
      // The audit trail keeps this hash, never the prompt text.
      facts.requestSha256 = createHash('sha256').update(raw).digest('hex')
      const body = parseJson(raw)
      const pipeline = agent.pipeline_id ? await this.deps.pipelines.find(agent.pipeline_id) : undefined
      chain = await this.deps.chains.get(pipeline, this.deps.config.defaultPreset)
      if (!chain.isReady) await this.#waitReady(chain)
      const { mode, flags } = applyFlags(parseFlags(req.headers['x-gov-flags']), chain, this.deps.knownFlags)
      const session = req.headers['x-gov-session']
      if (session !== undefined && (typeof session !== 'string' || !SESSION_ID.test(session))) {
        throw new Refusal('invalid_session', 'X-Gov-Session must be 1–256 printable ASCII characters', 400)
      }
      call = {
        requestId,
        agentId: agent.agent_id,
        sessionId: session,
        pipelineId: chain.pipelineId,
        pipelineVersion: chain.version,
        mode,
        flags,
      }
      // Observe mode: steps see a copy, so nothing they edit reaches the provider or the caller.
      const exchange = adapter.parseRequest(mode === 'observe' ? structuredClone(body) : body)
      facts.model = exchange.model
      if (!this.deps.authorizer.authorize({ kind: 'agent', agent }, 'gateway:call', exchange.model)) {
        throw new Refusal('forbidden', `agent ${agent.agent_id} may not call model ${exchange.model}`, 403)
      }

      let verdict = await this.deps.runner.run(chain, 'request', call, exchange, state)
      let answerBody: Record<string, unknown>
      if (verdict.kind === 'block') return this.#block(verdict, (o) => (outcome = o), fail)
      if (verdict.kind === 'respond') {
        answerBody =
          'text' in verdict.answer
            ? adapter.buildTextAnswer(verdict.answer.text, exchange)
            : structuredClone(verdict.answer.body)
      } else {
        const upstream = await this.#callUpstream(adapter, req, res, exchange, body)
        if (upstream.status < 200 || upstream.status >= 300) {
          outcome = 'error'
          return finish(upstream.status, () => {
            res.writeHead(upstream.status, {
              'content-type': upstream.contentType || 'application/json',
              'content-length': String(upstream.body.length),
              ...headers,
            })
            res.end(upstream.body)
          })
        }
        const text = upstream.body.toString('utf8')
        answerBody = upstream.contentType.includes('text/event-stream')
          ? adapter.reassembleStream(text)
          : (this.#parseUpstreamJson(text) as Record<string, unknown>)
      }

      const answer: Answer = adapter.parseAnswer(
        mode === 'observe' ? structuredClone(answerBody) : answerBody,
        exchange,
      )
      verdict = await this.deps.runner.run(chain, 'response', call, exchange, state, answer)
      if (verdict.kind === 'continue' && answer.message.toolCalls.length > 0) {
        verdict = await this.deps.runner.run(chain, 'tool_call', call, exchange, state, answer)
      }
      if (verdict.kind === 'block') return this.#block(verdict, (o) => (outcome = o), fail)
      // A step edited the answer: drop copies of its text no step saw (logprobs, citations).
      if (mode === 'enforce' && answer.message.parts.some((p) => p.edited))
        adapter.dropUnscannedText(answerBody)
      if (verdict.kind === 'respond') {
        answerBody =
          'text' in verdict.answer
            ? adapter.buildTextAnswer(verdict.answer.text, exchange)
            : verdict.answer.body
      }
      const finalBody = answerBody
      const classification = this.#classification(state)
      const minted = await this.deps.tokens.mint(grantOf({ call, chain, exchange, state, classification }))
      headers['x-gov-token'] = minted.token
      tokenId = minted.id
      await finish(200, () => {
        if (exchange.stream) {
          const sse = adapter.toSse(finalBody, adapter.sseOptions(exchange))
          res.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache',
            'content-length': String(Buffer.byteLength(sse)),
            ...headers,
          })
          res.end(sse)
        } else sendJson(res, 200, finalBody, headers)
      })
    } catch (err) {
      await fail(err)
    }
  }

  async #block(
    verdict: Verdict & { kind: 'block' },
    setOutcome: (o: CallOutcome) => void,
    fail: (err: unknown) => Promise<void>,
  ) {
    setOutcome(verdict.status && verdict.status >= 500 ? 'error' : 'blocked')
    this.deps.tokens.countRefusedCall()
    await fail(new GovError(verdict.code, verdict.reason, verdict.status ?? 403))
  }

  async #authenticate(req: IncomingMessage) {
    const key = extractKey(req.headers)
    if (!key)
      throw new Refusal('unauthorized', 'missing API key: send Authorization: Bearer <agent key>', 401)
    const agent = await this.deps.agents.byKey(key)
    if (agent) return agent
    if (sameKey(key, this.deps.config.adminApiKey)) {
      throw new Refusal('forbidden', 'the admin key cannot call models; use an agent key', 403)
    }
    throw new Refusal('unauthorized', 'invalid API key', 401)
  }

  async #waitReady(chain: Chain): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Refusal('not_ready', 'governance steps are still loading; retry shortly', 503)),
        READY_WAIT_MS,
      )
    })
    try {
      await Promise.race([chain.ready, timeout])
    } catch (err) {
      if (err instanceof GovError) throw err
      throw new Refusal('not_ready', `a governance step failed to load: ${(err as Error).message}`, 503)
    } finally {
      clearTimeout(timer)
    }
  }

  async #callUpstream(
    adapter: VendorAdapter,
    req: IncomingMessage,
    res: ServerResponse,
    exchange: Exchange,
    body: unknown,
  ) {
    const provider = this.deps.providers.route(adapter.vendor, exchange.model)
    const key = await this.deps.secrets.get(provider.keyName)
    if (!key)
      throw new Refusal(
        'provider_not_configured',
        `${provider.keyName} is not set; gov cannot call ${provider.name}`,
        502,
      )
    const started = performance.now()
    const abort = new AbortController()
    // The caller hung up: stop paying for the provider's answer.
    const onClose = () => {
      if (!res.writableFinished) abort.abort()
    }
    res.once('close', onClose)
    try {
      const result = await this.deps.upstream.send(
        provider,
        adapter.upstreamHeaders(req.headers, key),
        JSON.stringify(body),
        abort.signal,
      )
      this.deps.metrics.upstreamDuration.observe(
        { provider: provider.name, status: String(result.status) },
        (performance.now() - started) / 1000,
      )
      return result
    } finally {
      res.off('close', onClose)
    }
  }

  #parseUpstreamJson(text: string): unknown {
    try {
      return JSON.parse(text)
    } catch {
      throw new Refusal(
        'upstream_invalid_response',
        'the provider answered with a body that is not JSON',
        502,
      )
    }
  }

  #classification(state: CallState): ClassificationLevel {
    let level: ClassificationLevel = 'public'
    for (const finding of state.findings) level = maxLevel(level, finding.level)
    return level
  }
}
