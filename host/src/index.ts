import 'reflect-metadata'
import type { AddressInfo } from 'node:net'
import type { StepPlugin } from '@gov/core'
import type { DependencyContainer } from 'tsyringe'
import type { Invalidator } from './agents/invalidator.js'
import type { AuditEvidence } from './audit/audit-evidence.js'
import type { AuditTrail } from './audit/audit-trail.js'
import type { ChainBuilder } from './chain/chain-builder.js'
import { PluginRegistry } from './chain/plugin-registry.js'
import { type GovConfig, loadConfig } from './config.js'
import { buildContainer, TOKENS } from './container.js'
import type { HealthService } from './health/health-service.js'
import { createKv, readRedisSettings } from './kv/create-kv.js'
import { createLogger, type Logger } from './logging.js'
import type { GovMetrics } from './metrics/metrics.js'
import { HealthMonitor } from './monitor/health-monitor.js'
import { readMonitorSettings } from './monitor/monitor-settings.js'
import type { PipelineService } from './pipelines/pipeline-service.js'
import { createSecretSource } from './secrets/create-secret-source.js'
import type { SecretSource } from './secrets/secret-source.js'
import { buildRouter, createHttpServer } from './server.js'
import { createStore } from './storage/create-store.js'
import { readStorageSettings } from './storage/storage-settings.js'
import { CertificateStore } from './tls/certificate-store.js'
import { readTlsSettings } from './tls/tls-settings.js'
import type { TokenService } from './tokens/token-service.js'
import { createCallTracer } from './tracing/call-tracer.js'
import type { UpstreamClient } from './upstream/upstream-client.js'

export type { EvidenceResult } from './audit/evidence-verify.js'
export { mergeJwks, type OfflineResult, verifyExportFile } from './audit/offline-verify.js'
export { compilePolicySet } from './auth/compile-policy.js'
export { DEFAULT_POLICY_FILE, SCHEMA_FILE } from './auth/policy-files.js'
export { BUILTIN_STEPS } from './chain/plugin-registry.js'
export { PRESETS } from './chain/presets.js'
export { type GovConfig, loadConfig } from './config.js'
export { TOKENS } from './container.js'
export {
  describeRedisTls,
  type RedisTlsSettings,
  readRedisTlsSettings,
  redisTlsOptions,
} from './kv/redis-tls.js'
export { createLogger } from './logging.js'
export { type DiskUsage, measureDisk } from './monitor/disk-usage.js'
export { readMonitorSettings } from './monitor/monitor-settings.js'
export { createSecretSource } from './secrets/create-secret-source.js'
export { EnvSecretSource, isSecretName, type SecretSource } from './secrets/secret-source.js'
export { VaultAuth } from './secrets/vault-auth.js'
export { VaultClient } from './secrets/vault-client.js'
export { kvDataPath, readVaultSettings, type VaultSettings } from './secrets/vault-settings.js'
export { MIGRATIONS_FOLDER } from './storage/sql-connection.js'
export { type CertificateExpiry, readCertificateExpiry } from './tls/certificate-expiry.js'
export { loadCertificates } from './tls/certificate-store.js'
export { readTlsSettings, type TlsSettings } from './tls/tls-settings.js'
export type { CapabilityClaims } from './tokens/capability-claims.js'
export { importSigningKey } from './tokens/signing-key.js'
export { SIGNING_KEY_SECRET } from './tokens/token-settings.js'
export { PACKAGE_VERSION as VERSION } from './version.js'

/** Options of {@link startGateway}. */
export interface StartOptions {
  /** Environment to read configuration from; default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Secret source; default the environment. */
  secrets?: SecretSource
  /** Plugin objects registered directly (tests, embedding), after the packages. */
  plugins?: StepPlugin[]
  /** Log destination; default stdout. */
  logDestination?: NodeJS.WritableStream
  /** Postgres schema for all tables (tests isolate runs with it). */
  databaseSchema?: string
  /** Replace registrations before first use. */
  override?: (c: DependencyContainer) => void
}

/** A running gateway. */
export interface Gateway {
  readonly url: string
  readonly port: number
  readonly config: GovConfig
  readonly container: DependencyContainer
  readonly logger: Logger
  close(): Promise<void>
}

/**
 * Start gov: read configuration, connect storage and the key-value store, load
 * step plugins, build the start-up chains (their models load in the
 * background; `/health/startup` answers 503 until they are ready) and listen.
 */
export async function startGateway(options: StartOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env
  // The logger comes first: the Vault secret source logs its outages. LOG_LEVEL is plain config.
  const logger = createLogger(env.LOG_LEVEL || 'info', options.logDestination)
  const secrets = options.secrets ?? createSecretSource(env, logger)
  // What start-up has opened so far, closed in reverse when a later step fails (bad plugin, port in use).
  const opened: (() => Promise<unknown>)[] = []
  const fail = async (err: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close().catch(() => {})
    if (!options.secrets) await secrets.close?.()
    throw err
  }
  const config = await loadConfig(env, secrets).catch(fail)
  const storage = await Promise.resolve(env).then(readStorageSettings).catch(fail)
  const store = createStore({
    ...storage,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: options.databaseSchema,
    // A dropped connection fails only the query in flight; the pool reconnects.
    onError: (err) => logger.warn({ err: err.message }, 'database connection error'),
  })
  await store.init().catch(fail)
  opened.push(() => store.close())
  const onRedisError = (err: Error) => logger.warn({ err: err.message }, 'redis connection error')
  // GOV_REDIS_PREFIX and the GOV_REDIS_TLS_* files (a private CA, a client certificate).
  const redis = await Promise.resolve(env)
    .then((e) => readRedisSettings(e, config.redisUrl, onRedisError))
    .catch(fail)
  const kv = await createKv({ redisUrl: config.redisUrl, ...redis, onError: onRedisError })
  opened.push(() => kv.close())
  const registry = new PluginRegistry(logger)
  try {
    await registry.loadAll(config.plugins)
    for (const plugin of options.plugins ?? []) registry.register(plugin)
  } catch (err) {
    await fail(err)
  }

  // Off unless GOV_TRACING=otlp; only then is the OpenTelemetry SDK loaded.
  const tracer = await createCallTracer(env, logger).catch(fail)
  if (tracer) opened.push(() => tracer.shutdown())
  const container = buildContainer({ config, logger, secrets, store, kv, registry, tracer }, options.override)
  await container.resolve<Invalidator>(TOKENS.Invalidator).start().catch(fail)
  await container.resolve<TokenService>(TOKENS.Tokens).start().catch(fail)
  const evidence = container.resolve<AuditEvidence>(TOKENS.Evidence)
  evidence.start()
  opened.push(() => evidence.close())
  const chains = container.resolve<ChainBuilder>(TOKENS.Chains)
  opened.push(
    () => chains.close(),
    () => container.resolve<UpstreamClient>(TOKENS.Upstream).close(),
  )
  const pipelines = container.resolve<PipelineService>(TOKENS.Pipelines)
  container.resolve<HealthService>(TOKENS.Health).warming(warmChains(chains, pipelines, config, logger))

  // Checked before the port opens: a bad certificate path must stop start-up, not the first handshake.
  const tls = readTlsSettings(env)
  const certificates = tls ? await CertificateStore.open(tls, logger).catch(fail) : undefined
  if (certificates) opened.push(async () => certificates.close())
  const server = createHttpServer(buildRouter(container), certificates)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => resolve())
  }).catch(fail)
  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `${certificates ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`
  const health = container.resolve<HealthService>(TOKENS.Health)
  const monitor = new HealthMonitor({
    settings: readMonitorSettings(env),
    logger,
    registry: container.resolve<GovMetrics>(TOKENS.Metrics).registry,
    ready: async () => {
      const { checks } = (await health.ready()).body
      const failing = Object.entries(checks).filter(([, v]) => v !== 'ok')
      return { ok: failing.length === 0, failing: failing.map(([k, v]) => `${k}=${v}`) }
    },
  })
  monitor.start()
  logger.info({ url, storage: store.kind, kv: kv.kind, env: config.env }, 'gov listening')
  if (config.adminKeyGenerated) {
    // Printed once, to the terminal only: logs never carry keys.
    process.stderr.write(
      `\ngov: GOV_ADMIN_API_KEY is not set; generated an admin key for this process (development only):\n  ${config.adminApiKey}\n\n`,
    )
  }

  let closed = false
  return {
    url,
    port,
    config,
    container,
    logger,
    async close() {
      if (closed) return
      closed = true
      monitor.stop()
      certificates?.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await chains.close()
      await container.resolve<UpstreamClient>(TOKENS.Upstream).close()
      await monitor.idle()
      // Stops the checkpoint timer and the SIEM sinks (records still queued are logged as undelivered).
      await evidence.close()
      await kv.close()
      // Records still being written belong to calls that were answered or are about to be.
      await container.resolve<AuditTrail>(TOKENS.Audit).idle()
      // Spans of the last calls are sent before the process may exit.
      await tracer?.shutdown()
      await store.close()
      // A source passed in belongs to the caller; the one made here is closed here.
      if (!options.secrets) await secrets.close?.()
    },
  }
}

/** Build the default preset's chain and every stored pipeline's chain, so models load before traffic. */
async function warmChains(
  chains: ChainBuilder,
  pipelines: PipelineService,
  config: GovConfig,
  logger: Logger,
): Promise<void> {
  const builds: Promise<unknown>[] = [chains.get(undefined, config.defaultPreset).then((c) => c.ready)]
  for (const pipeline of await pipelines.list()) {
    builds.push(
      chains
        .get(pipeline, config.defaultPreset)
        .then((c) => c.ready)
        .catch((err) =>
          logger.error({ err, pipeline: pipeline.pipeline_id }, 'stored pipeline cannot be built'),
        ),
    )
  }
  await Promise.all(builds)
}
