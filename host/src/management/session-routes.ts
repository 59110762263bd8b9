import { GovError } from '@gov/core'
import type { AgentService } from '../agents/agent-service.js'
import { type AdminAudit, idChange } from '../audit/admin-entry.js'
import type { Chain } from '../chain/chain.js'
import type { ChainBuilder } from '../chain/chain-builder.js'
import type { PluginRegistry } from '../chain/plugin-registry.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { PipelineService } from '../pipelines/pipeline-service.js'
import type { SessionBackend } from '../sessions/session-backend.js'
import { openSession, stepSessionKey } from '../sessions/session-store.js'
import type { AdminGuard } from './admin-guard.js'
import { pathId } from './schemas.js'

const SESSION_ID = /^[\x21-\x7e]{1,256}$/

/**
 * Per-session and per-agent step state for admins:
 * - `GET /sessions/{agent_id}/{session_id}`: what each step of the agent's
 *   pipeline keeps about the session (its `describeSession`, e.g. taint labels
 *   and their origin), read without renewing the session's TTL;
 * - `DELETE /sessions/{agent_id}/{session_id}`: forget the session in every
 *   step (audited);
 * - `GET /agents/{agent_id}/spend`: the `spend` section of the steps'
 *   `describeAgent` (cost tracking).
 * The host knows no step's keys: each step describes its own state.
 */
export function registerSessionRoutes(
  router: Router,
  deps: {
    guard: AdminGuard
    agents: AgentService
    pipelines: PipelineService
    chains: ChainBuilder
    registry: PluginRegistry
    sessions: SessionBackend
    audit: AdminAudit
    defaultPreset: string
  },
): void {
  const { guard, agents, audit } = deps

  /** The agent's current chain (404 for an unknown agent). */
  async function chainOf(agentId: string): Promise<Chain> {
    const agent = await agents.get(pathId(agentId, 'agent'))
    const pipeline = agent.pipeline_id ? await deps.pipelines.find(agent.pipeline_id) : undefined
    return deps.chains.get(pipeline, deps.defaultPreset)
  }

  function sessionIdOf(value: string | undefined): string {
    if (!value || !SESSION_ID.test(value))
      throw new GovError('invalid_session', 'a session id is 1–256 printable ASCII characters', 400)
    return value
  }

  router.on('GET', '/sessions/:agent_id/:session_id', async (req, res, params) => {
    await guard.require(req, 'admin:read')
    const sessionId = sessionIdOf(params.session_id)
    const chain = await chainOf(params.agent_id as string)
    const agentId = params.agent_id as string
    const steps: Record<string, unknown> = {}
    for (const step of chain.steps) {
      if (!step.instance.describeSession) continue
      const view = await step.instance.describeSession(
        openSession(deps.sessions, step.name, agentId, sessionId, undefined),
      )
      if (view !== undefined) steps[step.name] = view
    }
    sendJson(res, 200, { agent_id: agentId, session_id: sessionId, steps })
  })

  router.on('DELETE', '/sessions/:agent_id/:session_id', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    const sessionId = sessionIdOf(params.session_id)
    const agentId = (await agents.get(pathId(params.agent_id, 'agent'))).agent_id
    // Every installed step, not only the current pipeline's: an earlier pipeline may have left state.
    const names = deps.registry.list().map((loaded) => loaded.plugin.name)
    await Promise.all(names.map((name) => deps.sessions.clear(stepSessionKey(name, agentId, sessionId))))
    await audit.recordAdmin(idChange(admin, 'session.clear', 204, { agentId }, { session_id: sessionId }))
    res.writeHead(204).end()
  })

  router.on('GET', '/agents/:agent_id/spend', async (req, res, params) => {
    await guard.require(req, 'admin:read')
    const chain = await chainOf(params.agent_id as string)
    let spend: Record<string, unknown> | undefined
    for (const step of chain.steps) {
      const view = await step.instance.describeAgent?.(params.agent_id as string)
      if (view?.spend !== undefined) spend = { ...spend, ...(view.spend as Record<string, unknown>) }
    }
    if (!spend) {
      throw new GovError('not_tracked', "no step of this agent's pipeline tracks spend", 404)
    }
    sendJson(res, 200, { agent_id: params.agent_id, spend })
  })
}
