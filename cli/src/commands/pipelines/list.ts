import { Command } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand, table } from '../../admin/admin-command.js'

/** `gov pipelines list` */
export class PipelinesListCommand extends AdminCommand {
  static override paths = [['pipelines', 'list']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'list the pipelines',
    details:
      'Calls `GET /pipelines` with `GOV_ADMIN_API_KEY`. One line per pipeline: id, preset, version, number of overridden steps.',
    examples: [
      [
        'List pipelines of a gateway',
        'GOV_ADMIN_API_KEY=… $0 pipelines list --url https://gov.internal:8443',
      ],
    ],
  })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('GET', '/pipelines')
    const pipelines = (body?.pipelines ?? []) as {
      pipeline_id: string
      preset: string
      version: number
      overrides: object
    }[]
    this.print(body, () =>
      table(
        ['PIPELINE', 'PRESET', 'VERSION', 'OVERRIDES'],
        pipelines.map((p) => [
          p.pipeline_id,
          p.preset,
          String(p.version),
          String(Object.keys(p.overrides ?? {}).length),
        ]),
      ),
    )
    return 0
  }
}
