import { createServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { DependencyContainer } from 'tsyringe'
import type { AgentActivity } from './agents/activity.js'
import type { AgentService } from './agents/agent-service.js'
import type { AuditEvidence } from './audit/audit-evidence.js'
import { registerAuditRoutes } from './audit/audit-routes.js'
import type { AuditTrail } from './audit/audit-trail.js'
import { registerPolicyRoutes } from './auth/policy-routes.js'
import type { GovConfig } from './config.js'
import { type Adapters, TOKENS } from './container.js'
import { registerCountTokensRoute } from './gateway/count-tokens-route.js'
import type { GatewayHandler } from './gateway/gateway-handler.js'
import { registerModelRoutes } from './gateway/model-routes.js'
import { registerHealthRoutes } from './health/health-routes.js'
import { Router } from './http/router.js'
import type { KvHandle } from './kv/create-kv.js'
import type { AdminGuard } from './management/admin-guard.js'
import { registerAgentRoutes } from './management/agent-routes.js'
import { registerPipelineRoutes } from './management/pipeline-routes.js'
import { registerSessionRoutes } from './management/session-routes.js'
import { registerSecretRoutes } from './secrets/secret-routes.js'
import type { CertificateStore } from './tls/certificate-store.js'
import { registerTokenRoutes } from './tokens/token-routes.js'

/** Build the router with every route of the gateway. */
export function buildRouter(c: DependencyContainer): Router {
  const config = c.resolve<GovConfig>(TOKENS.Config)
  const router = new Router(c.resolve(TOKENS.Metrics), c.resolve(TOKENS.Logger))
  const gateway = c.resolve<GatewayHandler>(TOKENS.Gateway)
  const adapters = c.resolve<Adapters>(TOKENS.Adapters)
  router.on('POST', '/v1/chat/completions', (req, res) => gateway.handle(adapters.openai, req, res))
  router.on('POST', '/v1/messages', (req, res) => gateway.handle(adapters.anthropic, req, res))
  router.on('POST', '/v1/responses', (req, res) => gateway.handle(adapters.responses, req, res))
  registerCountTokensRoute(router, {
    gateway,
    adapters,
    tokens: c.resolve(TOKENS.TokenCounter),
    pipelines: c.resolve(TOKENS.Pipelines),
    chains: c.resolve(TOKENS.Chains),
    runner: c.resolve(TOKENS.Runner),
    defaultPreset: config.defaultPreset,
    maxBodyBytes: config.maxBodyBytes,
    maxJsonDepth: config.maxJsonDepth,
  })
  registerModelRoutes(router, {
    gateway,
    adapters,
    authorizer: c.resolve(TOKENS.Authorizer),
    providers: c.resolve(TOKENS.Providers),
    secrets: c.resolve(TOKENS.Secrets),
  })
  const shared = {
    guard: c.resolve<AdminGuard>(TOKENS.Guard),
    agents: c.resolve<AgentService>(TOKENS.Agents),
    activity: c.resolve<AgentActivity>(TOKENS.Activity),
    audit: c.resolve<AuditTrail>(TOKENS.Audit),
    maxBodyBytes: config.maxBodyBytes,
  } as const
  registerPipelineRoutes(router, {
    ...shared,
    pipelines: c.resolve(TOKENS.Pipelines),
    logger: c.resolve(TOKENS.Logger),
  })
  registerAgentRoutes(router, shared)
  registerSessionRoutes(router, {
    ...shared,
    pipelines: c.resolve(TOKENS.Pipelines),
    chains: c.resolve(TOKENS.Chains),
    registry: c.resolve(TOKENS.Registry),
    sessions: c.resolve<KvHandle>(TOKENS.Kv).sessions,
    defaultPreset: config.defaultPreset,
  })
  registerHealthRoutes(router, {
    ...shared,
    health: c.resolve(TOKENS.Health),
    metrics: c.resolve(TOKENS.Metrics),
  })
  registerPolicyRoutes(router, {
    guard: shared.guard,
    authorizer: c.resolve(TOKENS.Authorizer),
    invalidator: c.resolve(TOKENS.Invalidator),
  })
  registerTokenRoutes(router, { guard: shared.guard, tokens: c.resolve(TOKENS.Tokens), audit: shared.audit })
  registerAuditRoutes(router, {
    guard: shared.guard,
    audit: shared.audit,
    checkpoints: c.resolve<AuditEvidence>(TOKENS.Evidence).checkpoints,
    store: c.resolve(TOKENS.Store),
  })
  registerSecretRoutes(router, {
    guard: shared.guard,
    secrets: c.resolve(TOKENS.Secrets),
    logger: c.resolve(TOKENS.Logger),
    audit: shared.audit,
    invalidator: c.resolve(TOKENS.Invalidator),
  })
  return router
}

/**
 * A server for the router, with keep-alive tuned for load balancers: HTTPS
 * when given certificates (which then follow rotations without a restart),
 * else plain HTTP.
 */
export function createHttpServer(router: Router, certificates?: CertificateStore): Server {
  const handle = (req: Parameters<Router['lookup']>[0], res: Parameters<Router['lookup']>[1]) =>
    router.lookup(req, res)
  let server: Server
  if (certificates) {
    const secure = createHttpsServer(certificates.serverOptions(), handle)
    certificates.watch(secure)
    // https.Server extends tls.Server, which node:http's type does not name; callers only use the common part.
    server = secure as unknown as Server
  } else server = createServer(handle)
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  return server
}
