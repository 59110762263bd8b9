/**
 * `GET /audit/export?after=<seq>&limit=<n>&format=jsonl|ocsf`: the chain in
 * `seq` order from a cursor, streamed as JSON Lines, one object per line.
 *
 * `format=jsonl` (default): each record as its own line, exactly as hashed
 * (the objects of `GET /audit`; they have no `type` field), each signed
 * checkpoint after the record it signed, and a last line:
 *
 *     {"seq":1,"id":"…","time":"…",…,"prev_hash":"000…","hash":"…"}
 *     {"type":"checkpoint","checkpoint":{seq,hash,record_id,record_time,created_at,kid,jws}}
 *     {"type":"end","next_cursor":"1234","records":1000,"checkpoints":3,"more":true}
 *
 * `format=ocsf`: one OCSF-shaped API Activity event per record (see `ocsf.ts`),
 * then the same `end` line. Checkpoints are not OCSF events and are left out.
 *
 * The cursor is the `seq` of the last record sent: pass `next_cursor` as the
 * next `after` (when nothing is new it is the `after` given, so a poller keeps
 * asking with it). `more` says whether records past this page already exist.
 * Records are read from the store page by page while the answer streams; a
 * failure after the first byte writes `{"type":"error","error":{code,message}}`
 * instead of the `end` line, so an answer without `end` is incomplete.
 */
import type { ServerResponse } from 'node:http'
import type { AuditCheckpoint, Store } from '../storage/store.js'
import { invalidQueryError } from './audit-errors.js'
import { toOcsf } from './ocsf.js'

export type ExportFormat = 'jsonl' | 'ocsf'

export const EXPORT_DEFAULT_LIMIT = 10_000
export const EXPORT_MAX_LIMIT = 100_000
/** Records read from the store per query while streaming. */
const READ_PAGE = 1000

export interface ExportQuery {
  after: number
  limit: number
  format: ExportFormat
}

const KNOWN = new Set(['after', 'limit', 'format'])

/** Parse the query of `GET /audit/export`; 400 `invalid_request` for anything off. */
export function parseExportQuery(params: URLSearchParams): ExportQuery {
  for (const name of new Set(params.keys())) {
    if (!KNOWN.has(name)) throw invalidQueryError(name, `one of ${[...KNOWN].join(', ')}`)
    if (params.getAll(name).length > 1) throw invalidQueryError(name, 'given once')
  }
  const after = params.get('after') ?? '0'
  if (!/^(0|[1-9]\d{0,15})$/.test(after)) throw invalidQueryError('after', 'a record seq (0 for the start)')
  const limit = params.get('limit') ?? String(EXPORT_DEFAULT_LIMIT)
  const n = Number(limit)
  if (!/^\d+$/.test(limit) || n < 1 || n > EXPORT_MAX_LIMIT) {
    throw invalidQueryError('limit', `an integer from 1 to ${EXPORT_MAX_LIMIT}`)
  }
  const format = params.get('format') ?? 'jsonl'
  if (format !== 'jsonl' && format !== 'ocsf') throw invalidQueryError('format', 'jsonl or ocsf')
  return { after: Number(after), limit: n, format }
}

/** Stream the export to `res` (headers not yet sent). */
export async function streamExport(store: Store, query: ExportQuery, res: ServerResponse): Promise<void> {
  // Read the first page before the status line, so a database outage is still a clean 503.
  let page = await store.listAudit({
    order: 'asc',
    afterSeq: query.after,
    limit: Math.min(READ_PAGE, query.limit + 1),
  })
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  let cursor = query.after
  let records = 0
  let checkpoints = 0
  let more = false
  try {
    for (;;) {
      const take = page.slice(0, query.limit - records)
      if (take.length < page.length) more = true
      const last = take.at(-1)
      const signed: AuditCheckpoint[] =
        query.format === 'jsonl' && last
          ? await store.listCheckpoints({
              afterSeq: cursor,
              upToSeq: last.seq,
              order: 'asc',
              limit: EXPORT_MAX_LIMIT,
            })
          : []
      let lines = ''
      let next = 0
      for (const record of take) {
        lines +=
          query.format === 'ocsf' ? `${JSON.stringify(toOcsf(record))}\n` : `${JSON.stringify(record)}\n`
        while (next < signed.length && signed[next]!.seq <= record.seq) {
          lines += `${JSON.stringify({ type: 'checkpoint', checkpoint: signed[next] })}\n`
          next += 1
          checkpoints += 1
        }
      }
      records += take.length
      if (last) cursor = last.seq
      if (lines && !res.write(lines)) await drained(res)
      if (more || records >= query.limit || page.length < READ_PAGE) {
        if (!more && records >= query.limit && page.length === take.length) {
          // Exactly `limit` sent: one look ahead says whether more exist.
          more = (await store.listAudit({ order: 'asc', afterSeq: cursor, limit: 1 })).length > 0
        }
        break
      }
      page = await store.listAudit({
        order: 'asc',
        afterSeq: cursor,
        limit: Math.min(READ_PAGE, query.limit - records + 1),
      })
    }
    res.end(`${JSON.stringify({ type: 'end', next_cursor: String(cursor), records, checkpoints, more })}\n`)
  } catch (err) {
    const code = (err as { code?: unknown }).code
    res.end(
      `${JSON.stringify({
        type: 'error',
        error: {
          code: typeof code === 'string' ? code : 'internal_error',
          message: 'the export stopped before its end; resume from the last record received',
        },
      })}\n`,
    )
    throw err
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      if (res.destroyed && !res.writableFinished) reject(new Error('the client went away'))
      else resolve()
    }
    res.once('drain', done)
    res.once('close', done)
  })
}
