/**
 * The audit routes. Reading needs an admin credential with the `audit:read`
 * action; signing a checkpoint needs `admin:write` (Cedar sees the `audit` area).
 *
 * - `GET /audit`: records, filtered and paged (`audit-query.ts`)
 * - `GET /audit/verify`: re-check the whole chain and every signed checkpoint
 * - `GET /audit/export`: the chain from a cursor as JSON Lines or OCSF-shaped events (`audit-export.ts`)
 * - `GET /audit/checkpoints?after=&limit=`: signed checkpoints by `seq`
 * - `POST /audit/checkpoints`: sign a checkpoint of the current head now
 */
import { GovError } from '@gov/core'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from '../management/admin-guard.js'
import type { Store } from '../storage/store.js'
import { invalidQueryError } from './audit-errors.js'
import { parseExportQuery, streamExport } from './audit-export.js'
import { nextCursor, parseAuditQuery } from './audit-query.js'
import type { AuditTrail } from './audit-trail.js'
import type { AuditCheckpoints } from './checkpoint-service.js'

/** Register the audit routes. */
export function registerAuditRoutes(
  router: Router,
  deps: { guard: AdminGuard; audit: AuditTrail; checkpoints?: AuditCheckpoints; store?: Store },
): void {
  const { guard, audit, checkpoints, store } = deps

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
    sendJson(res, 200, checkpoints ? await checkpoints.verify() : await audit.verify())
  })

  if (store) {
    router.on('GET', '/audit/export', async (req, res) => {
      await guard.require(req, 'audit:read')
      const query = parseExportQuery(new URL(req.url ?? '/', 'http://gov').searchParams)
      await streamExport(store, query, res)
    })
  }

  if (checkpoints) {
    router.on('GET', '/audit/checkpoints', async (req, res) => {
      await guard.require(req, 'audit:read')
      const params = new URL(req.url ?? '/', 'http://gov').searchParams
      for (const name of params.keys()) {
        if (name !== 'after' && name !== 'limit') throw invalidQueryError(name, 'one of after, limit')
      }
      const after = params.get('after') ?? '0'
      if (!/^(0|[1-9]\d{0,15})$/.test(after)) throw invalidQueryError('after', 'a checkpoint seq')
      const limit = params.get('limit') ?? '100'
      if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
        throw invalidQueryError('limit', 'an integer from 1 to 1000')
      }
      const found = await checkpoints.list({
        afterSeq: Number(after),
        order: 'asc',
        limit: Number(limit) + 1,
      })
      const page = found.slice(0, Number(limit))
      sendJson(res, 200, {
        checkpoints: page,
        next_cursor: found.length > page.length ? String(page.at(-1)!.seq) : null,
      })
    })

    router.on('POST', '/audit/checkpoints', async (req, res) => {
      await guard.require(req, 'admin:write', 'audit')
      req.resume()
      const result = await checkpoints.checkpoint()
      if (!result) throw new GovError('audit_empty', 'the audit trail has no records to checkpoint yet', 409)
      sendJson(res, result.created ? 201 : 200, result)
    })
  }
}
