/**
 * `GET /audit` (records, filtered and paged) and `GET /audit/verify` (re-check
 * the whole chain). Both need an admin credential with the `audit:read` action.
 */
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from '../management/admin-guard.js'
import { nextCursor, parseAuditQuery } from './audit-query.js'
import type { AuditTrail } from './audit-trail.js'

/** Register the audit routes. */
export function registerAuditRoutes(router: Router, deps: { guard: AdminGuard; audit: AuditTrail }): void {
  const { guard, audit } = deps

  router.on('GET', '/audit', async (req, res) => {
    await guard.require(req, 'audit:read')
    const query = parseAuditQuery(new URL(req.url ?? '/', 'http://gov').searchParams)
    // One record more than asked tells whether another page exists.
    const records = await audit.list({ ...query, limit: query.limit + 1 })
    sendJson(res, 200, {
      records: records.slice(0, query.limit),
      next_cursor: nextCursor(records, query.limit),
    })
  })

  router.on('GET', '/audit/verify', async (req, res) => {
    await guard.require(req, 'audit:read')
    sendJson(res, 200, await audit.verify())
  })
}
