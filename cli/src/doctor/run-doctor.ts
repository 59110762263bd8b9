import { createLogger, createSecretSource, EnvSecretSource, type SecretSource } from '@gov/host'
import { checkCertificates } from './check-certificates.js'
import { checkConfig } from './check-config.js'
import { checkDisk } from './check-disk.js'
import { checkGateway } from './check-gateway.js'
import { checkKeys, checkProduction } from './check-keys.js'
import { checkNode } from './check-node.js'
import { checkPlugins } from './check-plugins.js'
import { checkPolicy } from './check-policy.js'
import { checkProvider } from './check-providers.js'
import { checkRedis } from './check-redis.js'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { checkSigningKey } from './check-signing-key.js'
import { checkStorage } from './check-storage.js'
import { checkVault } from './check-vault.js'

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  env: NodeJS.ProcessEnv
  /** Running gateways (replicas) to probe as well. */
  urls?: readonly string[]
  /** Per network probe. */
  timeoutMs: number
  /** Node.js version to judge (tests). */
  nodeVersion?: string
}

const NOT_READ = 'not checked: secrets cannot be read (see vault)'

/**
 * Run every check in order. Secrets are read the way the gateway reads them:
 * from Vault when `VAULT_ADDR` is set (same settings, login order and KV
 * paths), else from the environment. Checks that need the configuration or
 * the secrets are reported as not checked when those cannot be read; the
 * others still run, so one bad value does not hide the rest of the picture.
 */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { env, timeoutMs } = options
  const urls = options.urls ?? []
  const production = (env.GOV_ENV ?? '') === 'production'
  const out: CheckResult[] = [checkNode(options.nodeVersion)]

  let secrets: SecretSource | undefined
  if (env.VAULT_ADDR?.trim()) {
    const vault = await checkVault(env, timeoutMs, production)
    out.push(...vault.results)
    if (vault.usable) {
      try {
        secrets = createSecretSource({ ...env, VAULT_TIMEOUT_MS: String(timeoutMs) }, createLogger('silent'))
      } catch (err) {
        out.push(result('vault', 'settings', 'fail', messageOf(err), codeOf(err)))
      }
    }
  } else secrets = new EnvSecretSource(env)

  try {
    if (secrets) out.push(...(await checkWithSecrets(env, secrets, production, urls, timeoutMs)))
    else
      out.push(
        result(
          'secrets',
          'all',
          'fail',
          `${NOT_READ}; configuration, storage, Redis and keys were not checked`,
        ),
      )
    out.push(...(await checkPolicy(env)))
    out.push(...(await checkCertificates(env, production)))
    out.push(...(await checkDisk(env)))
    if (secrets) out.push(...checkProduction(secrets, production))
    for (const url of urls) out.push(...(await checkGateway(url, timeoutMs)))
  } finally {
    await secrets?.close?.()
  }
  return out
}

async function checkWithSecrets(
  env: NodeJS.ProcessEnv,
  secrets: SecretSource,
  production: boolean,
  urls: readonly string[],
  timeoutMs: number,
): Promise<CheckResult[]> {
  const out: CheckResult[] = []
  const { config, results } = await checkConfig(env, secrets)
  out.push(...results)
  const secret = async (name: string): Promise<string | undefined> => {
    try {
      return await secrets.get(name)
    } catch (err) {
      out.push(
        result('keys', name, 'fail', `cannot be read from ${secrets.kind}: ${messageOf(err)}`, codeOf(err)),
      )
      return undefined
    }
  }
  const databaseUrl = await secret('DATABASE_URL')
  out.push(
    ...(await checkStorage({ databaseUrl, dataDir: env.GOV_DATA_DIR || undefined, production, timeoutMs })),
  )
  out.push(await checkRedis({ redisUrl: await secret('REDIS_URL'), production, timeoutMs, env }))
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
  out.push(...(await checkSigningKey(secrets, production, urls, timeoutMs)))
  if (config)
    out.push(...(await checkPlugins({ plugins: config.plugins, defaultPreset: config.defaultPreset })))
  else
    out.push(
      result('plugins', 'GOV_PLUGINS', 'warn', 'not checked: the configuration cannot be read (see config)'),
    )
  return out
}
