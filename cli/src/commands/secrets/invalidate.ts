import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov secrets invalidate NAME` */
export class SecretsInvalidateCommand extends AdminCommand {
  static override paths = [['secrets', 'invalidate']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'make the gateway re-read a secret from Vault',
    details:
      'Calls `POST /admin/secrets/invalidate?name=NAME`: the next use of the secret reads Vault again (the cached value stays the fallback until that read succeeds). Run it after rotating a secret in Vault. Only secret names are accepted (ending in `_API_KEY`, `_SECRET`, `_PASSWORD`, `_TOKEN`, or a known secret such as `DATABASE_URL`).',
    examples: [['After rotating the OpenAI key in Vault', '$0 secrets invalidate OPENAI_API_KEY']],
  })
  name = Option.String({ name: 'name' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request(
      'POST',
      `/admin/secrets/invalidate?name=${encodeURIComponent(this.name)}`,
    )
    this.print(body, () => `invalidated ${body.invalidated}: the next use reads it from Vault\n`)
    return 0
  }
}
