import type { SecretSource } from '../secrets/secret-source.js'
import type { AdminPrincipal } from './authorizer.js'
import { sameKey } from './credentials.js'

/** The admin credential (GOV_ADMIN_API_KEY): `Gov::Admin::"admin"`, role `admin`. */
export const ADMIN: AdminPrincipal = Object.freeze({ kind: 'admin', name: 'admin', role: 'admin' })

/** The read-only credential (GOV_AUDITOR_API_KEY): `Gov::Admin::"auditor"`, role `auditor`. */
export const AUDITOR: AdminPrincipal = Object.freeze({ kind: 'admin', name: 'auditor', role: 'auditor' })

/** Secret name of the auditor key. */
export const AUDITOR_KEY_NAME = 'GOV_AUDITOR_API_KEY'

/**
 * Which admin credential `key` is, if any. The auditor key is read through the
 * secret source on each use (it is cached there), so rotating it in the vault
 * and invalidating the secret takes effect without a restart.
 */
export async function identifyAdmin(
  key: string,
  adminKey: string,
  secrets: SecretSource | undefined,
): Promise<AdminPrincipal | undefined> {
  if (sameKey(key, adminKey)) return ADMIN
  // An auditor key that cannot be read (vault down, nothing cached) matches nothing: the key is
  // then judged as an agent key or refused, rather than failing every admin request with a 500.
  const auditorKey = await secrets?.get(AUDITOR_KEY_NAME).catch(() => undefined)
  if (auditorKey && sameKey(key, auditorKey)) return AUDITOR
  return undefined
}
