import { randomUUID } from 'node:crypto'
import { GovError } from '@gov/core'
import type { Invalidator } from '../agents/invalidator.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from '../management/admin-guard.js'
import type { Authorizer } from './authorizer.js'

/**
 * `POST /admin/policy/reload`: re-read the policy file and swap it in. A policy
 * that does not load leaves the old one in force and answers 400 with the
 * problems (`details.problems`: message, policy id, line, column). While a
 * policy is loaded it decides (`Action::"write"` on `Gov::Api::"policy"`);
 * while none is, the admin key alone may reload, so a fixed file can be loaded
 * without a restart.
 */
export function registerPolicyRoutes(
  router: Router,
  deps: { guard: AdminGuard; authorizer: Authorizer; invalidator?: Invalidator },
): void {
  const { guard, authorizer } = deps

  router.on('POST', '/admin/policy/reload', async (req, res) => {
    if (authorizer.loaded) await guard.require(req, 'admin:write', 'policy')
    else await guard.requireAdminKey(req)
    req.resume()
    if (!authorizer.reload)
      throw new GovError('not_supported', 'this authorizer cannot reload its policy', 501)
    const report = await authorizer.reload()
    // Every other replica reloads too (through the bus; retried while Redis is down).
    await deps.invalidator?.publish('policy', randomUUID())
    sendJson(res, 200, { status: 'ok', ...report })
  })
}
