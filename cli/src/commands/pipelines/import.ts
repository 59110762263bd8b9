import { readFile } from 'node:fs/promises'
import { Command, Option } from 'clipanion'
import { type AdminClient, AdminError } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov pipelines import gov-pipeline.yaml` */
export class PipelinesImportCommand extends AdminCommand {
  static override paths = [['pipelines', 'import']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'create or replace a pipeline from a gov-pipeline.yaml',
    details:
      'Sends the file written by `gov assess` (or any pipeline definition in YAML or JSON) to `POST /pipelines/import`. The pipeline is created, or replaced when its id exists (its version goes up and every replica rebuilds its chain).',
    examples: [['Import what gov assess wrote', '$0 pipelines import gov-pipeline.yaml']],
  })
  file = Option.String({ name: 'file' })

  async run(client: AdminClient): Promise<number> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (err) {
      throw new AdminError(
        'GOV_ERR_CLI_FILE_UNREADABLE',
        `${this.file} cannot be read (${(err as NodeJS.ErrnoException).code})`,
        0,
      )
    }
    const json = this.file.endsWith('.json')
    const { status, body } = await client.request('POST', '/pipelines/import', {
      text,
      contentType: json ? 'application/json' : 'application/yaml',
    })
    this.print(
      body,
      () =>
        `${status === 201 ? 'created' : 'replaced'} pipeline ${body.pipeline_id} (preset ${body.preset}, version ${body.version})\n`,
    )
    return 0
  }
}
