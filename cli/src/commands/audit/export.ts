import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { Command, Option } from 'clipanion'
import * as t from 'typanion'
import { type AdminClient, AdminError, AdminErrorCodes } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** Records per `GET /audit` page: the API's maximum. */
const PAGE = 1000
/** Records per `GET /audit/export` request. */
const EXPORT_PAGE = 10_000

/** `gov audit export [--after SEQ] [--format jsonl|ocsf] [--out FILE]` */
export class AuditExportCommand extends AdminCommand {
  static override paths = [['audit', 'export']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'export audit records as JSON Lines, in chain order',
    details:
      'Streams `GET /audit/export` to stdout or `--out`. `--format jsonl` (default): one record per line exactly as hashed, with each signed checkpoint as a `{"type":"checkpoint",…}` line after its record, so `gov audit verify --offline` can check the file. `--format ocsf`: one OCSF-shaped API Activity event per record. `--after SEQ` resumes after the last record a previous export wrote (its `seq`), so a cron job can ship only what is new; the last line on stderr says how many records were written and the last seq (the next `--after`). Filters (`--agent`, `--kind call|admin`, `--from`/`--to`, ISO 8601) page `GET /audit` instead and write records only (no checkpoints, jsonl only).',
    examples: [
      ['Everything to a file', '$0 audit export --out audit.jsonl'],
      ['What is new since seq 1200', '$0 audit export --after 1200 >> audit.jsonl'],
      ['OCSF-shaped events for a SIEM', '$0 audit export --format ocsf --out audit.ocsf.jsonl'],
    ],
  })
  after = Option.String('--after', {
    description: 'Start after this seq',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(0)]),
  })
  format = Option.String('--format', {
    description: 'jsonl (records and checkpoints) or ocsf',
    validator: t.isEnum(['jsonl', 'ocsf']),
  })
  out = Option.String('--out', { description: 'File to write (default stdout)' })
  agent = Option.String('--agent', { description: 'Only records of this agent' })
  kind = Option.String('--kind', { description: 'call or admin', validator: t.isEnum(['call', 'admin']) })
  from = Option.String('--from', { description: 'From this time (inclusive, ISO 8601)' })
  to = Option.String('--to', { description: 'Until this time (exclusive, ISO 8601)' })

  async run(client: AdminClient): Promise<number> {
    const filtered = this.agent || this.kind || this.from || this.to
    if (filtered && this.format === 'ocsf') {
      throw new AdminError(
        'usage',
        '--format ocsf exports the whole chain; drop --agent/--kind/--from/--to',
        0,
      )
    }
    const sink: Writable = this.out ? createWriteStream(this.out, { flags: 'w' }) : this.context.stdout
    let summary: { written: number; last: number | undefined; checkpoints: number }
    try {
      summary = filtered ? await this.#filtered(client, sink) : await this.#stream(client, sink)
    } finally {
      if (this.out) {
        sink.end()
        await once(sink, 'finish')
      }
    }
    const { written, last, checkpoints } = summary
    const signed = checkpoints > 0 ? ` and ${checkpoints} checkpoints` : ''
    this.context.stderr.write(
      `exported ${written} records${signed}${last === undefined ? '' : `, last seq ${last}`}\n`,
    )
    return 0
  }

  /** `GET /audit/export` page by page, until the gateway says nothing more exists. */
  async #stream(client: AdminClient, sink: Writable) {
    const key = this.context.env.GOV_ADMIN_API_KEY?.trim() ?? ''
    let cursor = String(this.after ?? 0)
    let written = 0
    let checkpoints = 0
    let last: number | undefined
    for (;;) {
      const query = new URLSearchParams({
        after: cursor,
        limit: String(EXPORT_PAGE),
        format: this.format ?? 'jsonl',
      })
      const url = `${client.base}/audit/export?${query}`
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } }).catch((err: Error) => {
        throw new AdminError(AdminErrorCodes.UNREACHABLE, `cannot reach ${client.base}: ${err.message}`, 0)
      })
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => undefined)) as {
          error?: { code?: string; message?: string }
        }
        throw new AdminError(
          body?.error?.code ?? AdminErrorCodes.BAD_ANSWER,
          body?.error?.message ?? 'the gateway did not answer the export',
          res.status,
        )
      }
      let end: { next_cursor: string; more: boolean } | undefined
      let rest = ''
      const decoder = new TextDecoder()
      const take = async (line: string) => {
        if (line.trim() === '') return
        const value = JSON.parse(line) as { type?: string; seq?: number; metadata?: { sequence?: number } }
        if (value.type === 'end') {
          end = value as unknown as typeof end
          return
        }
        if (value.type === 'error') {
          throw new AdminError(
            (value as { error?: { code?: string } }).error?.code ?? 'export_failed',
            `the export stopped after seq ${last ?? cursor}; run again with --after ${last ?? cursor}`,
            res.status,
          )
        }
        if (value.type === 'checkpoint') checkpoints += 1
        else {
          written += 1
          last = value.seq ?? value.metadata?.sequence
        }
        if (!sink.write(`${line}\n`)) await once(sink, 'drain')
      }
      for await (const chunk of res.body) {
        rest += decoder.decode(chunk as Uint8Array, { stream: true })
        const lines = rest.split('\n')
        rest = lines.pop() ?? ''
        for (const line of lines) await take(line)
      }
      await take(rest + decoder.decode())
      if (!end) {
        throw new AdminError(
          AdminErrorCodes.BAD_ANSWER,
          `the export ended without its end line; run again with --after ${last ?? cursor}`,
          res.status,
        )
      }
      const finished = end as { next_cursor: string; more: boolean }
      cursor = finished.next_cursor
      if (!finished.more) return { written, last, checkpoints }
    }
  }

  /** Filtered records through `GET /audit` (records only). */
  async #filtered(client: AdminClient, sink: Writable) {
    let cursor = this.after ? String(this.after) : undefined
    let written = 0
    let last: number | undefined
    for (;;) {
      const query = new URLSearchParams({ order: 'asc', limit: String(PAGE) })
      if (cursor) query.set('cursor', cursor)
      if (this.agent) query.set('agent_id', this.agent)
      if (this.kind) query.set('kind', this.kind)
      if (this.from) query.set('from', this.from)
      if (this.to) query.set('to', this.to)
      const { body } = await client.request('GET', `/audit?${query}`)
      for (const record of body.records as { seq: number }[]) {
        if (!sink.write(`${JSON.stringify(record)}\n`)) await once(sink, 'drain')
        written++
        last = record.seq
      }
      if (!body.next_cursor) break
      cursor = String(body.next_cursor)
    }
    return { written, last, checkpoints: 0 }
  }
}
