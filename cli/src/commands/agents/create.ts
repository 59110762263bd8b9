import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov agents create ID [--pipeline P]` */
export class AgentsCreateCommand extends AdminCommand {
  static override paths = [['agents', 'create']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'create an agent and print its API key (shown once)',
    details:
      'Calls `POST /agents`. The API key is printed once, on its own line after `api_key:`, so a script can capture it; gov keeps only its hash.',
    examples: [['Create an agent on a pipeline', '$0 agents create support-bot --pipeline support']],
  })
  agentId = Option.String({ name: 'agent_id' })
  pipeline = Option.String('--pipeline', { description: 'Pipeline to assign (default: the default preset)' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('POST', '/agents', {
      json: { agent_id: this.agentId, ...(this.pipeline ? { pipeline_id: this.pipeline } : {}) },
    })
    this.print(
      body,
      () =>
        `created agent ${body.agent_id} (pipeline ${body.pipeline_id ?? 'default'})\napi_key: ${body.api_key}\n`,
    )
    return 0
  }
}
