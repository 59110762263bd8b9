import type { AgentActivity } from '../agents/activity.js'
import { type AgentService, agentView } from '../agents/agent-service.js'
import { type AdminAudit, agentChange, idChange } from '../audit/admin-entry.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from './admin-guard.js'
import { AgentCreate, pathId, validator } from './schemas.js'

const checkCreate = validator(AgentCreate)

/** Agents: create (key shown once), list, get, delete, rotate key. */
export function registerAgentRoutes(
  router: Router,
  deps: {
    guard: AdminGuard
    agents: AgentService
    activity: AgentActivity
    audit: AdminAudit
    maxBodyBytes: number
  },
): void {
  const { guard, agents, audit } = deps

  router.on('POST', '/agents', async (req, res) => {
    const admin = await guard.require(req, 'admin:write')
    const body = checkCreate(parseJson(await readBody(req, deps.maxBodyBytes)))
    const { agent, apiKey } = await agents.create(body.agent_id, body.pipeline_id ?? null, audit, (created) =>
      agentChange(admin, 'agent.create', 201, created),
    )
    sendJson(res, 201, { ...agentView(agent), api_key: apiKey })
  })

  router.on('GET', '/agents', async (req, res) => {
    await guard.require(req, 'admin:read')
    sendJson(res, 200, { agents: (await agents.list()).map(agentView) })
  })

  router.on('GET', '/agents/:agent_id', async (req, res, params) => {
    await guard.require(req, 'admin:read')
    const agent = await agents.get(pathId(params.agent_id, 'agent'))
    sendJson(res, 200, { ...agentView(agent), health: await deps.activity.summary(agent.agent_id) })
  })

  router.on('DELETE', '/agents/:agent_id', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    const id = pathId(params.agent_id, 'agent')
    await agents.delete(id, audit, () => idChange(admin, 'agent.delete', 204, { agentId: id }))
    await deps.activity.forget(id)
    res.writeHead(204).end()
  })

  router.on('POST', '/agents/:agent_id/rotate-key', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    req.resume()
    const { agent, apiKey } = await agents.rotate(pathId(params.agent_id, 'agent'), audit, (rotated) =>
      agentChange(admin, 'agent.rotate_key', 200, rotated),
    )
    sendJson(res, 200, { ...agentView(agent), api_key: apiKey })
  })
}
