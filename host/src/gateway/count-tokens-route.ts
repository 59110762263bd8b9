import { randomUUID } from 'node:crypto'
import { type CallInfo, GovError, type TokenCounter } from '@gov/core'
import { Chain } from '../chain/chain.js'
import type { ChainBuilder } from '../chain/chain-builder.js'
import { CallState, type ChainRunner } from '../chain/chain-runner.js'
import type { Adapters } from '../container.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson, toGovError } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { PipelineService } from '../pipelines/pipeline-service.js'
import type { GatewayHandler } from './gateway-handler.js'

/** How long a count waits for a chain whose steps are still loading (as the model endpoints do). */
const READY_WAIT_MS = 60_000

export interface CountTokensDeps {
  gateway: GatewayHandler
  adapters: Adapters
  tokens: TokenCounter
  pipelines: PipelineService
  chains: ChainBuilder
  runner: ChainRunner
  defaultPreset: string
  maxBodyBytes: number
  maxJsonDepth: number
}

/**
 * `POST /v1/messages/count_tokens`, as the Anthropic SDK's `messages.countTokens`
 * calls it. The caller is authenticated, the body is validated as an Anthropic
 * request, then the request steps of the agent's chain run over it — so what is
 * counted is what would go upstream (masked PII, redacted secrets, narrowed
 * tools), and a request the chain would refuse (an injection) is refused here
 * too, in Anthropic's error format (in observe mode the steps run over a copy
 * and the body is counted as sent, as it would go upstream). The count is the host's token counter (the
 * one `track_cost` and the budgets use). Nothing is sent upstream.
 *
 * The run is a dry run: it uses a session of its own (`count_tokens:<id>`), so
 * it moves no placeholder counter, loop count or taint of the caller's
 * conversation, and it leaves out the steps that watch the upstream outcome
 * (`track_cost`, `break_circuit`, `dedupe`): they take holds, count failures or
 * lead a coalesced flight that only an upstream answer would release.
 */
export function registerCountTokensRoute(router: Router, deps: CountTokensDeps): void {
  const adapter = deps.adapters.anthropic
  const dryChains = new WeakMap<Chain, Chain>()
  const dryChain = (chain: Chain): Chain => {
    let dry = dryChains.get(chain)
    if (!dry) {
      const steps = chain.steps.filter((step) => !step.instance.onUpstreamOutcome)
      dry = new Chain(
        chain.key,
        chain.pipelineId,
        chain.version,
        chain.mode,
        chain.allowFlags,
        steps,
        chain.resolved,
      )
      dryChains.set(chain, dry)
    }
    return dry
  }

  router.on('POST', '/v1/messages/count_tokens', async (req, res) => {
    const requestId = randomUUID()
    res.setHeader('x-request-id', requestId)
    try {
      const agent = await deps.gateway.authenticate(req)
      const raw = await readBody(req, deps.maxBodyBytes)
      const body = parseJson(raw, true, deps.maxJsonDepth) as Record<string, unknown>
      // count_tokens takes a Messages request without `max_tokens`, which the parser requires.
      const request = { ...body, max_tokens: 1 }
      const exchange = adapter.parseRequest(request)
      const pipeline = agent.pipeline_id ? await deps.pipelines.find(agent.pipeline_id) : undefined
      const chain = await deps.chains.get(pipeline, deps.defaultPreset)
      if (!chain.isReady) await waitReady(chain)
      const call: CallInfo = {
        requestId,
        agentId: agent.agent_id,
        sessionId: `count_tokens:${requestId}`,
        pipelineId: chain.pipelineId,
        pipelineVersion: chain.version,
        mode: chain.mode,
        flags: new Map(),
      }
      // In observe mode the body goes upstream as sent: the steps run over a copy, the original is counted.
      const governed = call.mode === 'observe' ? adapter.parseRequest(structuredClone(request)) : exchange
      const verdict = await deps.runner.run(dryChain(chain), 'request', call, governed, new CallState())
      if ((verdict.kind === 'block' || verdict.kind === 'retry') && call.mode === 'enforce') {
        const status = verdict.status ?? 403
        sendJson(res, status, adapter.errorBody(status, verdict.code, verdict.reason))
        return
      }
      sendJson(res, 200, { input_tokens: deps.tokens.countRequest(exchange) })
    } catch (err) {
      const e = toGovError(err)
      sendJson(res, e.status, adapter.errorBody(e.status, e.code, e.message))
    }
  })
}

async function waitReady(chain: Chain): Promise<void> {
  try {
    await Promise.race([
      chain.ready,
      new Promise<never>((_, reject) => {
        AbortSignal.timeout(READY_WAIT_MS).addEventListener('abort', () =>
          reject(new GovError('not_ready', 'governance steps are still loading; retry shortly', 503)),
        )
      }),
    ])
  } catch (err) {
    if (err instanceof GovError) throw err
    throw new GovError('not_ready', `a governance step failed to load: ${(err as Error).message}`, 503)
  }
}
