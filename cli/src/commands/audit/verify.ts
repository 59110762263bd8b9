import { Command } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov audit verify` */
export class AuditVerifyCommand extends AdminCommand {
  static override paths = [['audit', 'verify']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'verify the audit hash chain',
    details:
      'Calls `GET /audit/verify`: the gateway re-hashes every record in chain order. Prints the record count and the head (seq and hash; keep it elsewhere to detect a later rewrite or truncation), or the first broken record. Exit code 0 when the chain is intact, 3 when it is broken, 1 when it could not be checked.',
    examples: [['Verify and keep the head', '$0 audit verify --json > audit-head.json']],
  })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('GET', '/audit/verify')
    this.print(body, () => {
      if (body.valid) {
        const head = body.head ? `; head seq ${body.head.seq} hash ${body.head.hash}` : ''
        return `audit chain intact: ${body.records} records${head}\n`
      }
      const b = body.first_broken ?? {}
      return `audit chain BROKEN at seq ${b.seq ?? '?'}: ${b.reason ?? 'see --json'} (${body.records} records checked)\n`
    })
    return body.valid ? 0 : 3
  }
}
