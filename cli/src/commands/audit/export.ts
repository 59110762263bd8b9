import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { Command, Option } from 'clipanion'
import * as t from 'typanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** Records per `GET /audit` page: the API's maximum. */
const PAGE = 1000

/** `gov audit export [--after SEQ] [--out FILE]` */
export class AuditExportCommand extends AdminCommand {
  static override paths = [['audit', 'export']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'export audit records as JSON Lines, in chain order',
    details:
      'Pages through `GET /audit?order=asc` and writes one record per line (JSON Lines) to stdout or `--out`. `--after SEQ` resumes after the last record a previous export wrote (its `seq`), so a cron job can ship only what is new. Filters: `--agent`, `--kind call|admin`, `--from`/`--to` (ISO 8601). The last line on stderr says how many records were written and the last seq.',
    examples: [
      ['Everything to a file', '$0 audit export --out audit.jsonl'],
      ['What is new since seq 1200', '$0 audit export --after 1200 >> audit.jsonl'],
    ],
  })
  after = Option.String('--after', {
    description: 'Start after this seq',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  })
  out = Option.String('--out', { description: 'File to write (default stdout)' })
  agent = Option.String('--agent', { description: 'Only records of this agent' })
  kind = Option.String('--kind', { description: 'call or admin', validator: t.isEnum(['call', 'admin']) })
  from = Option.String('--from', { description: 'From this time (inclusive, ISO 8601)' })
  to = Option.String('--to', { description: 'Until this time (exclusive, ISO 8601)' })

  async run(client: AdminClient): Promise<number> {
    const sink: Writable = this.out ? createWriteStream(this.out, { flags: 'w' }) : this.context.stdout
    let cursor = this.after === undefined ? undefined : String(this.after)
    let written = 0
    let last: number | undefined
    try {
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
    } finally {
      if (this.out) {
        sink.end()
        await once(sink, 'finish')
      }
    }
    this.context.stderr.write(
      `exported ${written} records${last === undefined ? '' : `, last seq ${last}`}\n`,
    )
    return 0
  }
}
