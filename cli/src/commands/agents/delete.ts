import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov agents delete ID` */
export class AgentsDeleteCommand extends AdminCommand {
  static override paths = [['agents', 'delete']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'delete an agent (its key stops working)',
    details: 'Calls `DELETE /agents/{agent_id}`. Its audit records stay.',
    examples: [['Delete an agent', '$0 agents delete support-bot']],
  })
  agentId = Option.String({ name: 'agent_id' })

  async run(client: AdminClient): Promise<number> {
    await client.request('DELETE', `/agents/${encodeURIComponent(this.agentId)}`)
    this.print({ deleted: this.agentId }, () => `deleted agent ${this.agentId}\n`)
    return 0
  }
}
