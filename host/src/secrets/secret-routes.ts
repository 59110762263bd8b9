import { GovError } from '@gov/core'
import type { Invalidator } from '../agents/invalidator.js'
import { type AdminAudit, idChange } from '../audit/admin-entry.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { Logger } from '../logging.js'
import type { AdminGuard } from '../management/admin-guard.js'
import { CONFIG_NAME_PATTERN, isSecretName, type SecretSource } from './secret-source.js'

/**
 * `POST /admin/secrets/invalidate?name=<SECRET_NAME>` (admin key): the next
 * use of the secret reads it from Vault again. 400 `invalid_request` without
 * `name`, 400 `not_a_secret` when the name is plain configuration (never cached).
 */
export function registerSecretRoutes(
  router: Router,
  deps: {
    guard: AdminGuard
    secrets: SecretSource
    logger: Logger
    audit?: AdminAudit
    /** Tells every replica to drop the secret (it drops it here at once). */
    invalidator?: Invalidator
  },
): void {
  router.on('POST', '/admin/secrets/invalidate', async (req, res) => {
    const admin = await deps.guard.require(req, 'admin:write')
    req.resume()
    const name = new URL(req.url ?? '/', 'http://gov').searchParams.get('name')
    if (!name) throw new GovError('invalid_request', 'query parameter name is required', 400)
    if (!CONFIG_NAME_PATTERN.test(name) || !isSecretName(name)) {
      throw new GovError(
        'not_a_secret',
        `${name.slice(0, 128)} is not a secret name (secrets end in _API_KEY, _SECRET, _PASSWORD or _TOKEN)`,
        400,
      )
    }
    if (deps.invalidator) await deps.invalidator.publish('secret', name)
    else deps.secrets.invalidate(name)
    deps.logger.info({ secret: name }, 'secret invalidated')
    await deps.audit?.recordAdmin(idChange(admin, 'secret.invalidate', 200, {}, { secret_name: name }))
    sendJson(res, 200, { invalidated: name })
  })
}
