import { EnvSecretSource } from '@gov/host'
import { checkConfig } from './check-config.js'
import { checkGateway } from './check-gateway.js'
import { checkKeys, checkProduction } from './check-keys.js'
import { checkNode } from './check-node.js'
import { checkPlugins } from './check-plugins.js'
import { checkProvider } from './check-providers.js'
import { checkRedis } from './check-redis.js'
import { type CheckResult, result } from './check-result.js'
import { checkStorage } from './check-storage.js'

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  env: NodeJS.ProcessEnv
  /** A running gateway to probe as well. */
  url?: string | undefined
  /** Per network probe. */
  timeoutMs: number
  /** Node.js version to judge (tests). */
  nodeVersion?: string
}

/**
 * Run every check in order. Checks that need the configuration are reported
 * as not checked when it cannot be read; the others still run, so one bad
 * value does not hide the rest of the picture.
 */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { env, timeoutMs } = options
  const secrets = new EnvSecretSource(env)
  const production = (env.GOV_ENV ?? '') === 'production'
  const out: CheckResult[] = [checkNode(options.nodeVersion)]
  const { config, results } = await checkConfig(env, secrets)
  out.push(...results)

  out.push(
    ...(await checkStorage({
      databaseUrl: await secrets.get('DATABASE_URL'),
      dataDir: env.GOV_DATA_DIR || undefined,
      production,
      timeoutMs,
    })),
  )
  out.push(await checkRedis({ redisUrl: await secrets.get('REDIS_URL'), production, timeoutMs }))
  if (config) {
    out.push(
      ...(await Promise.all([
        checkProvider({ name: 'openai', baseUrl: config.openaiBaseUrl }, timeoutMs, production),
        checkProvider({ name: 'anthropic', baseUrl: config.anthropicBaseUrl }, timeoutMs, production),
      ])),
    )
  } else
    out.push(
      result('provider', 'base URLs', 'warn', 'not checked: the configuration cannot be read (see config)'),
    )
  out.push(...(await checkKeys(secrets, production)))
  if (config)
    out.push(...(await checkPlugins({ plugins: config.plugins, defaultPreset: config.defaultPreset })))
  else
    out.push(
      result('plugins', 'GOV_PLUGINS', 'warn', 'not checked: the configuration cannot be read (see config)'),
    )
  out.push(...checkProduction(secrets, production))
  if (options.url) out.push(...(await checkGateway(options.url, timeoutMs)))
  return out
}
