import type { Logger } from '../logging.js'
import { EnvSecretSource, type SecretSource } from './secret-source.js'
import { VaultAuth } from './vault-auth.js'
import { VaultClient } from './vault-client.js'
import { VaultSecretSource } from './vault-secret-source.js'
import { readVaultSettings } from './vault-settings.js'

/**
 * The secret source for this environment: Vault when `VAULT_ADDR` is set,
 * else the process environment (development only; `/health` reports it as
 * production-unsafe under `GOV_ENV=production`). Throws
 * `GOV_ERR_VAULT_CONFIG_INVALID` when the `VAULT_*` settings cannot work.
 */
export function createSecretSource(env: NodeJS.ProcessEnv, logger: Logger): SecretSource {
  if (!env.VAULT_ADDR?.trim()) return new EnvSecretSource(env)
  const settings = readVaultSettings(env)
  const client = new VaultClient(settings)
  const auth = new VaultAuth({ client, settings, logger })
  logger.info(
    {
      vault: settings.addr,
      login: settings.jwtPath ? (settings.token ? 'jwt, then token' : 'jwt') : 'token',
      kv: `${settings.kvMount}/data/${settings.secretPath}/<NAME>`,
    },
    'secrets from vault',
  )
  return new VaultSecretSource({ client, auth, settings, env, logger })
}
