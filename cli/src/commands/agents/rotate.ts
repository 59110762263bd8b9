import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov agents rotate ID` */
export class AgentsRotateCommand extends AdminCommand {
  static override paths = [['agents', 'rotate']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: "replace an agent's API key",
    details:
      'Calls `POST /agents/{agent_id}/rotate-key`. The old key stops working on every replica; the new one is printed once after `api_key:`.',
    examples: [['Rotate a key', '$0 agents rotate support-bot']],
  })
  agentId = Option.String({ name: 'agent_id' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('POST', `/agents/${encodeURIComponent(this.agentId)}/rotate-key`)
    this.print(body, () => `rotated the key of ${body.agent_id}\napi_key: ${body.api_key}\n`)
    return 0
  }
}
