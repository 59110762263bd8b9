import type { Logger } from '../logging.js'
import type { SecretSource } from './secret-source.js'

/**
 * How the admin guard reads `GOV_ADMIN_API_KEY`: through the secret source on
 * each admin request (cached there), so a key rotated in Vault takes effect
 * after the cache lifetime or an invalidate, without a restart. A key gov
 * generated at start (development) is not in any source and stays fixed. When
 * the source fails outright, the last key seen is used; when the secret is
 * removed, no admin key matches (fail closed).
 */
export function adminKeyReader(
  secrets: SecretSource,
  startKey: { adminApiKey: string; adminKeyGenerated: boolean },
  logger: Logger,
): () => Promise<string | undefined> {
  if (startKey.adminKeyGenerated) return async () => startKey.adminApiKey
  let last = startKey.adminApiKey
  return async () => {
    try {
      const key = await secrets.get('GOV_ADMIN_API_KEY')
      if (key) last = key
      return key
    } catch (err) {
      logger.warn({ code: (err as { code?: string }).code }, 'admin key unreadable; using the last one seen')
      return last
    }
  }
}
