import type { AgentActivity } from '../agents/activity.js'
import type { AgentService } from '../agents/agent-service.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from '../management/admin-guard.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { HealthService } from './health-service.js'

/** Health probes (no auth), the fleet overview and `/metrics` (admin). */
export function registerHealthRoutes(
  router: Router,
  deps: {
    health: HealthService
    guard: AdminGuard
    agents: AgentService
    activity: AgentActivity
    metrics: GovMetrics
  },
): void {
  router.on('GET', '/health/live', (_req, res) => sendJson(res, 200, { status: 'ok' }))

  router.on('GET', '/health/ready', async (_req, res) => {
    const { status, body } = await deps.health.ready()
    sendJson(res, status, body)
  })

  router.on('GET', '/health/startup', async (_req, res) => {
    const { status, body } = await deps.health.startup()
    sendJson(res, status, body)
  })

  router.on('GET', '/health', async (_req, res) => {
    const { status, body } = await deps.health.legacy()
    sendJson(res, status, body)
  })

  // Agent ids and scores are fleet internals: admin only.
  router.on('GET', '/health/overview', async (req, res) => {
    await deps.guard.require(req, 'admin:read')
    const list = await deps.agents.list()
    // One read for all agents: with Redis, every replica answers from the same shared activity.
    const summaries = await deps.activity.summaries(list.map((a) => a.agent_id))
    const agents = list.map((a, i) => ({
      agent_id: a.agent_id,
      pipeline_id: a.pipeline_id,
      ...summaries[i],
    }))
    agents.sort((a, b) => a.score - b.score || a.agent_id.localeCompare(b.agent_id))
    sendJson(res, 200, { agents })
  })

  router.on('GET', '/metrics', async (req, res) => {
    await deps.guard.require(req, 'metrics:read')
    // Shared in Redis when configured; while Redis is down the gauge keeps its last value and the rest still renders.
    const active = await deps.activity.activeCount().catch(() => undefined)
    if (active !== undefined) deps.metrics.activeAgents.set(active)
    const { contentType, body } = await deps.metrics.render()
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) })
    res.end(body)
  })
}
