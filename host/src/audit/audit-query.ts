/**
 * Query parameters of `GET /audit`:
 *
 * | parameter    | meaning                                                            |
 * |--------------|--------------------------------------------------------------------|
 * | `agent_id`   | records of this agent                                              |
 * | `session_id` | records of this session (`X-Gov-Session`)                          |
 * | `outcome`    | `allowed`, `blocked`, `observed`, `error` (calls), `success` (admin) |
 * | `kind`       | `call` or `admin`                                                  |
 * | `from`, `to` | time range, ISO 8601 with a zone; `from` inclusive, `to` exclusive |
 * | `order`      | `desc` (newest first, default) or `asc` (chain order, for export)  |
 * | `limit`      | records per page, 1–1000, default 100                              |
 * | `cursor`     | `next_cursor` of the previous page                                 |
 *
 * Anything else is refused with 400 `invalid_request`, so a misspelt filter
 * never silently returns everything.
 */
import type { AuditKind, AuditQuery } from '../storage/store.js'
import { invalidQueryError } from './audit-errors.js'

export const DEFAULT_PAGE = 100
export const MAX_PAGE = 1000

const KNOWN = new Set(['agent_id', 'session_id', 'outcome', 'kind', 'from', 'to', 'order', 'limit', 'cursor'])
const OUTCOMES = new Set(['allowed', 'blocked', 'observed', 'error', 'success'])
const ID = /^[\x21-\x7e]{1,256}$/
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/
const CURSOR = /^[1-9]\d{0,15}$/

/** Parse the query string of `GET /audit` into a store query with `limit` records per page. */
export function parseAuditQuery(params: URLSearchParams): AuditQuery {
  for (const name of new Set(params.keys())) {
    if (!KNOWN.has(name)) throw invalidQueryError(name, `one of ${[...KNOWN].join(', ')}`)
    if (params.getAll(name).length > 1) throw invalidQueryError(name, 'given once')
  }
  const query: AuditQuery = { order: 'desc', limit: DEFAULT_PAGE }
  const agentId = params.get('agent_id')
  if (agentId !== null) query.agentId = matching(agentId, ID, 'agent_id', 'an agent id')
  const sessionId = params.get('session_id')
  if (sessionId !== null) query.sessionId = matching(sessionId, ID, 'session_id', 'a session id')
  const outcome = params.get('outcome')
  if (outcome !== null) {
    if (!OUTCOMES.has(outcome)) throw invalidQueryError('outcome', `one of ${[...OUTCOMES].join(', ')}`)
    query.outcome = outcome
  }
  const kind = params.get('kind')
  if (kind !== null) {
    if (kind !== 'call' && kind !== 'admin') throw invalidQueryError('kind', 'call or admin')
    query.kind = kind as AuditKind
  }
  const from = params.get('from')
  if (from !== null) query.from = time(from, 'from')
  const to = params.get('to')
  if (to !== null) query.to = time(to, 'to')
  const order = params.get('order')
  if (order !== null) {
    if (order !== 'asc' && order !== 'desc') throw invalidQueryError('order', 'asc or desc')
    query.order = order
  }
  const limit = params.get('limit')
  if (limit !== null) {
    const n = Number(limit)
    if (!/^\d+$/.test(limit) || n < 1 || n > MAX_PAGE)
      throw invalidQueryError('limit', `an integer from 1 to ${MAX_PAGE}`)
    query.limit = n
  }
  const cursor = params.get('cursor')
  if (cursor !== null) {
    const seq = Number(matching(cursor, CURSOR, 'cursor', 'a next_cursor of an earlier page'))
    if (query.order === 'asc') query.afterSeq = seq
    else query.beforeSeq = seq
  }
  return query
}

/** The cursor of the page after `records` (fetched with one more than `limit`), or null on the last page. */
export function nextCursor<T extends { seq: number }>(records: readonly T[], limit: number): string | null {
  return records.length > limit ? String(records[limit - 1]!.seq) : null
}

function matching(value: string, pattern: RegExp, name: string, expected: string): string {
  if (!pattern.test(value)) throw invalidQueryError(name, expected)
  return value
}

/**
 * Every record is written after 1970 and before 10000, so a bound outside that
 * range selects the same records as the range's edge. Clamping keeps it inside
 * what every store accepts (PostgreSQL has no year 0; a time zone can push
 * `9999-12-31T23:00-05:00` into year 10000) and the answer stays correct.
 */
const EARLIEST = Date.UTC(1970, 0, 1)
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

function time(value: string, name: string): string {
  const ms = Date.parse(value)
  if (!ISO_TIME.test(value) || !Number.isFinite(ms)) {
    throw invalidQueryError(name, 'an ISO 8601 time with a zone, e.g. 2026-05-01T12:00:00Z')
  }
  return new Date(Math.min(Math.max(ms, EARLIEST), LATEST)).toISOString()
}
