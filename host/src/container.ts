import { type DependencyContainer, instanceCachingFactory, container as rootContainer } from 'tsyringe'
import type { VendorAdapter } from './adapters/adapter.js'
import { AnthropicAdapter } from './adapters/anthropic-adapter.js'
import { OpenAiAdapter } from './adapters/openai-adapter.js'
import { ResponsesAdapter } from './adapters/responses-adapter.js'
import { AgentActivity } from './agents/activity.js'
import { AgentService } from './agents/agent-service.js'
import { Invalidator } from './agents/invalidator.js'
import { AuditEvidence } from './audit/audit-evidence.js'
import { AuditTrail } from './audit/audit-trail.js'
import type { Authorizer } from './auth/authorizer.js'
import { CedarAuthorizer } from './auth/cedar-authorizer.js'
import { ChainBuilder } from './chain/chain-builder.js'
import { ChainRunner } from './chain/chain-runner.js'
import { PluginRegistry } from './chain/plugin-registry.js'
import type { GovConfig } from './config.js'
import { BusFlights } from './flights/bus-flights.js'
import { CallRecorder } from './gateway/call-recorder.js'
import { ConversationSessions } from './gateway/conversation-sessions.js'
import { GatewayHandler } from './gateway/gateway-handler.js'
import { HealthService } from './health/health-service.js'
import type { KvHandle } from './kv/create-kv.js'
import type { Logger } from './logging.js'
import { AdminGuard } from './management/admin-guard.js'
import { GovMetrics } from './metrics/metrics.js'
import { PipelineService } from './pipelines/pipeline-service.js'
import { adminKeyReader } from './secrets/admin-key.js'
import type { SecretSource } from './secrets/secret-source.js'
import type { Store } from './storage/store.js'
import { TokenService } from './tokens/token-service.js'
import type { CallTracer } from './tracing/call-tracer.js'
import { ProviderRouter } from './upstream/providers.js'
import { UpstreamClient } from './upstream/upstream-client.js'
import { GenAiPriceBook } from './usage/price-book.js'
import { GptTokenCounter } from './usage/token-counter.js'
import { PACKAGE_VERSION } from './version.js'

/** DI tokens: one per service the composition root wires. */
export const TOKENS = {
  Config: Symbol('Config'),
  Logger: Symbol('Logger'),
  Secrets: Symbol('Secrets'),
  Store: Symbol('Store'),
  Kv: Symbol('Kv'),
  Metrics: Symbol('Metrics'),
  Registry: Symbol('PluginRegistry'),
  Invalidator: Symbol('Invalidator'),
  Chains: Symbol('ChainBuilder'),
  Runner: Symbol('ChainRunner'),
  Authorizer: Symbol('Authorizer'),
  Agents: Symbol('AgentService'),
  Pipelines: Symbol('PipelineService'),
  Activity: Symbol('AgentActivity'),
  Providers: Symbol('ProviderRouter'),
  Upstream: Symbol('UpstreamClient'),
  Health: Symbol('HealthService'),
  Guard: Symbol('AdminGuard'),
  Gateway: Symbol('GatewayHandler'),
  Adapters: Symbol('Adapters'),
  Tokens: Symbol('TokenService'),
  Audit: Symbol('AuditTrail'),
  Evidence: Symbol('AuditEvidence'),
  Recorder: Symbol('CallRecorder'),
  Flights: Symbol('Flights'),
  TokenCounter: Symbol('TokenCounter'),
  Prices: Symbol('PriceBook'),
  /** Registered only when tracing is on. */
  Tracer: Symbol('CallTracer'),
} as const

/** The adapters by vendor. */
export interface Adapters {
  openai: VendorAdapter
  anthropic: VendorAdapter
  responses: VendorAdapter
}

/** What exists before the container: read from the environment and connected at start. */
export interface Roots {
  config: GovConfig
  logger: Logger
  secrets: SecretSource
  store: Store
  kv: KvHandle
  registry: PluginRegistry
  /** OpenTelemetry tracing of each call; undefined when off. */
  tracer?: CallTracer
}

/**
 * The composition root: the one place where gov's services are wired. Each
 * gateway gets its own child container (tests run several in one process), and
 * any registration can be replaced before first use (`override`), e.g. a policy
 * engine for the Authorizer or Vault for the SecretSource.
 */
export function buildContainer(
  roots: Roots,
  override?: (c: DependencyContainer) => void,
): DependencyContainer {
  const c = rootContainer.createChildContainer()
  const single = <T>(token: symbol, make: (c: DependencyContainer) => T) =>
    c.register<T>(token, { useFactory: instanceCachingFactory<T>(make) })

  c.register(TOKENS.Config, { useValue: roots.config })
  c.register(TOKENS.Logger, { useValue: roots.logger })
  c.register(TOKENS.Secrets, { useValue: roots.secrets })
  c.register(TOKENS.Store, { useValue: roots.store })
  c.register(TOKENS.Kv, { useValue: roots.kv })
  c.register(TOKENS.Registry, { useValue: roots.registry })
  if (roots.tracer) c.register(TOKENS.Tracer, { useValue: roots.tracer })
  single(TOKENS.Metrics, () => new GovMetrics({ defaultMetrics: true }))
  single(TOKENS.Invalidator, (c) => {
    const logger = c.resolve<Logger>(TOKENS.Logger)
    const invalidator = new Invalidator(c.resolve<KvHandle>(TOKENS.Kv).bus, { logger })
    // Admin actions reach every replica: each replica acts on what the bus tells it.
    invalidator.on('secret', (name) => c.resolve<SecretSource>(TOKENS.Secrets).invalidate(name))
    invalidator.on('policy', () => {
      c.resolve<Authorizer>(TOKENS.Authorizer)
        .reload?.()
        .catch((err: Error) =>
          logger.error({ err: err.message }, 'policy reload from another replica failed'),
        )
    })
    invalidator.on('pipeline', (id) => c.resolve<ChainBuilder>(TOKENS.Chains).forget(id))
    return invalidator
  })
  single<Authorizer>(
    TOKENS.Authorizer,
    (c) =>
      new CedarAuthorizer({
        file: c.resolve<GovConfig>(TOKENS.Config).policyFile,
        logger: c.resolve(TOKENS.Logger),
      }),
  )
  single(TOKENS.Activity, (c) => new AgentActivity({ store: c.resolve<KvHandle>(TOKENS.Kv).activity }))
  single(TOKENS.Runner, (c) => new ChainRunner(c.resolve(TOKENS.Metrics)))
  single(TOKENS.Flights, (c) => {
    const kv = c.resolve<KvHandle>(TOKENS.Kv)
    return new BusFlights(kv.kv, kv.bus)
  })
  single(TOKENS.TokenCounter, () => new GptTokenCounter())
  single(TOKENS.Prices, () => new GenAiPriceBook())
  single(
    TOKENS.Chains,
    (c) =>
      new ChainBuilder(c.resolve(TOKENS.Registry), {
        logger: c.resolve(TOKENS.Logger),
        kv: c.resolve<KvHandle>(TOKENS.Kv).kv,
        sessions: c.resolve<KvHandle>(TOKENS.Kv).sessions,
        flights: c.resolve(TOKENS.Flights),
        tokens: c.resolve(TOKENS.TokenCounter),
        prices: c.resolve(TOKENS.Prices),
        metrics: c.resolve(TOKENS.Metrics),
      }),
  )
  single(
    TOKENS.Agents,
    (c) =>
      new AgentService(
        c.resolve(TOKENS.Store),
        c.resolve(TOKENS.Invalidator),
        c.resolve<GovConfig>(TOKENS.Config).licenseSeats,
      ),
  )
  single(TOKENS.Pipelines, (c) => {
    const chains = c.resolve<ChainBuilder>(TOKENS.Chains)
    return new PipelineService(
      c.resolve(TOKENS.Store),
      c.resolve(TOKENS.Registry),
      c.resolve(TOKENS.Invalidator),
      (id) => chains.forget(id),
    )
  })
  single(TOKENS.Providers, (c) => new ProviderRouter(c.resolve<GovConfig>(TOKENS.Config)))
  single(TOKENS.Upstream, (c) => {
    const config = c.resolve<GovConfig>(TOKENS.Config)
    return new UpstreamClient({ timeoutMs: config.upstreamTimeoutMs, maxAnswerBytes: config.maxAnswerBytes })
  })
  single<Adapters>(TOKENS.Adapters, () => ({
    openai: new OpenAiAdapter(),
    anthropic: new AnthropicAdapter(),
    responses: new ResponsesAdapter(),
  }))
  single(
    TOKENS.Guard,
    (c) =>
      new AdminGuard(
        adminKeyReader(c.resolve(TOKENS.Secrets), c.resolve(TOKENS.Config), c.resolve(TOKENS.Logger)),
        c.resolve(TOKENS.Agents),
        c.resolve(TOKENS.Authorizer),
        c.resolve(TOKENS.Secrets),
      ),
  )
  single(TOKENS.Health, (c) => {
    const config = c.resolve<GovConfig>(TOKENS.Config)
    const kv = c.resolve<KvHandle>(TOKENS.Kv)
    return new HealthService({
      store: c.resolve(TOKENS.Store),
      kvHealthy: () => kv.healthy(),
      kvKind: kv.kind,
      authorizer: c.resolve<Authorizer>(TOKENS.Authorizer),
      chains: c.resolve(TOKENS.Chains),
      version: PACKAGE_VERSION,
      env: config.env,
      secretsKind: c.resolve<SecretSource>(TOKENS.Secrets).kind,
      secretProblems: () => c.resolve<SecretSource>(TOKENS.Secrets).problems?.() ?? [],
    })
  })
  single(TOKENS.Tokens, (c) => {
    const config = c.resolve<GovConfig>(TOKENS.Config)
    return new TokenService({
      settings: config.tokens,
      secrets: c.resolve(TOKENS.Secrets),
      metrics: c.resolve(TOKENS.Metrics),
      logger: c.resolve(TOKENS.Logger),
      production: config.env === 'production',
    })
  })
  single(
    TOKENS.Audit,
    (c) => new AuditTrail(c.resolve(TOKENS.Store), { logger: c.resolve<Logger>(TOKENS.Logger) }),
  )
  single(TOKENS.Evidence, (c) => {
    const config = c.resolve<GovConfig>(TOKENS.Config)
    return new AuditEvidence({
      settings: config.audit,
      store: c.resolve(TOKENS.Store),
      audit: c.resolve(TOKENS.Audit),
      signer: c.resolve(TOKENS.Tokens),
      issuer: config.tokens.issuer,
      metrics: c.resolve(TOKENS.Metrics),
      logger: c.resolve(TOKENS.Logger),
    })
  })
  single(
    TOKENS.Recorder,
    (c) =>
      new CallRecorder({
        logger: c.resolve(TOKENS.Logger),
        metrics: c.resolve(TOKENS.Metrics),
        activity: c.resolve(TOKENS.Activity),
        audit: c.resolve(TOKENS.Audit),
      }),
  )
  single(TOKENS.Gateway, (c) => {
    const registry = c.resolve<PluginRegistry>(TOKENS.Registry)
    const recorder = c.resolve<CallRecorder>(TOKENS.Recorder)
    return new GatewayHandler({
      config: c.resolve(TOKENS.Config),
      logger: c.resolve(TOKENS.Logger),
      metrics: c.resolve(TOKENS.Metrics),
      agents: c.resolve(TOKENS.Agents),
      pipelines: c.resolve(TOKENS.Pipelines),
      chains: c.resolve(TOKENS.Chains),
      runner: c.resolve(TOKENS.Runner),
      authorizer: c.resolve(TOKENS.Authorizer),
      providers: c.resolve(TOKENS.Providers),
      upstream: c.resolve(TOKENS.Upstream),
      secrets: c.resolve(TOKENS.Secrets),
      tokens: c.resolve(TOKENS.Tokens),
      knownFlags: () =>
        new Set(['mode', ...registry.list().flatMap((p) => Object.keys(p.plugin.flags ?? {}))]),
      record: (summary) => recorder.record(summary),
      auditWritable: () => c.resolve<AuditTrail>(TOKENS.Audit).assertWritable(),
      conversations: new ConversationSessions(c.resolve<KvHandle>(TOKENS.Kv).kv),
      ...(roots.tracer ? { tracer: roots.tracer } : {}),
    })
  })
  override?.(c)
  return c
}
