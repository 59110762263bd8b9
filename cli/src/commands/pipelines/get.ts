import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov pipelines get ID` */
export class PipelinesGetCommand extends AdminCommand {
  static override paths = [['pipelines', 'get']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'show one pipeline with its resolved steps',
    details:
      'Calls `GET /pipelines/{pipeline_id}` and prints the record as JSON: preset, overrides, allowed flags, version and every step with its settings and status (`active`, `disabled`, `missing`).',
    examples: [['Show a pipeline', '$0 pipelines get support']],
  })
  pipelineId = Option.String({ name: 'pipeline_id' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('GET', `/pipelines/${encodeURIComponent(this.pipelineId)}`)
    this.print(body)
    return 0
  }
}
