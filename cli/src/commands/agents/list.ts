import { Command } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand, table } from '../../admin/admin-command.js'

/** `gov agents list` */
export class AgentsListCommand extends AdminCommand {
  static override paths = [['agents', 'list']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'list the agents',
    details:
      'Calls `GET /agents`. One line per agent: id, pipeline (`-` for the default preset), key prefix, creation time. Keys themselves are never shown again after creation.',
    examples: [['List agents', '$0 agents list']],
  })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('GET', '/agents')
    const agents = (body?.agents ?? []) as {
      agent_id: string
      pipeline_id: string | null
      key_prefix: string
      created_at: string
    }[]
    this.print(body, () =>
      table(
        ['AGENT', 'PIPELINE', 'KEY', 'CREATED'],
        agents.map((a) => [a.agent_id, a.pipeline_id ?? '-', `${a.key_prefix}…`, a.created_at]),
      ),
    )
    return 0
  }
}
