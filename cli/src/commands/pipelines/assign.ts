import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov pipelines assign PIPELINE AGENT` */
export class PipelinesAssignCommand extends AdminCommand {
  static override paths = [['pipelines', 'assign']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'assign a pipeline to an agent',
    details:
      "Calls `PUT /pipelines/{pipeline_id}/assign/{agent_id}`. The agent's next call runs through the pipeline.",
    examples: [['Put support-bot on the support pipeline', '$0 pipelines assign support support-bot']],
  })
  pipelineId = Option.String({ name: 'pipeline_id' })
  agentId = Option.String({ name: 'agent_id' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request(
      'PUT',
      `/pipelines/${encodeURIComponent(this.pipelineId)}/assign/${encodeURIComponent(this.agentId)}`,
    )
    this.print(body, () => `agent ${body.agent_id} now runs pipeline ${body.pipeline_id}\n`)
    return 0
  }
}
