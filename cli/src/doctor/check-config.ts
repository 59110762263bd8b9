import { type GovConfig, loadConfig, type SecretSource } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

/** Read the configuration the way `gov serve` does; a ConfigError is a fail with its code. */
export async function checkConfig(
  env: NodeJS.ProcessEnv,
  secrets: SecretSource,
): Promise<{ config: GovConfig | undefined; results: CheckResult[] }> {
  try {
    const config = await loadConfig(env, secrets)
    const detail = `GOV_ENV=${config.env}, listens on ${config.host}:${config.port}, default preset ${config.defaultPreset}, log level ${config.logLevel}`
    return { config, results: [result('config', 'environment', 'ok', detail)] }
  } catch (err) {
    return {
      config: undefined,
      results: [
        result('config', 'environment', 'fail', messageOf(err), codeOf(err) ?? 'GOV_ERR_CONFIG_INVALID'),
      ],
    }
  }
}
