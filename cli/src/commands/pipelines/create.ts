import { Command, Option, UsageError } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `step.setting=value`: the value is JSON when it parses (numbers, booleans, arrays), else a string. */
function parseOverride(spec: string, into: Record<string, Record<string, unknown>>): void {
  const match = /^([a-z0-9_]+)\.([A-Za-z0-9_]+)=(.*)$/s.exec(spec)
  if (!match)
    throw new UsageError(
      `--set expects step.setting=value (e.g. detect_injection.threshold=0.8), got "${spec}"`,
    )
  const [, step, setting, raw] = match as unknown as [string, string, string, string]
  let value: unknown = raw
  try {
    value = JSON.parse(raw)
  } catch {}
  into[step] = { ...into[step], [setting]: value }
}

/** `gov pipelines create ID --preset P [--set step.setting=value …]` */
export class PipelinesCreateCommand extends AdminCommand {
  static override paths = [['pipelines', 'create']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'create a pipeline',
    details:
      'Calls `POST /pipelines`. `--set step.setting=value` (repeatable) overrides one setting of a step; the value is read as JSON when it parses, so numbers and booleans keep their type. `--disable step` switches a step off. `--allow-flag name` lets callers relax that flag (e.g. `mode` for `X-Gov-Flags: mode=observe`). Invalid settings are refused by the gateway with their coded error.',
    examples: [
      [
        'A standard pipeline with a stricter injection threshold',
        '$0 pipelines create support --preset standard --set detect_injection.threshold=0.6',
      ],
      [
        'An observe-only pipeline without output constraints',
        '$0 pipelines create trial --preset observe --disable constrain_output',
      ],
    ],
  })
  pipelineId = Option.String({ name: 'pipeline_id' })
  preset = Option.String('--preset', 'standard', { description: 'Preset to start from (default standard)' })
  set = Option.Array('--set', [], { description: 'step.setting=value; repeatable' })
  disable = Option.Array('--disable', [], { description: 'Step to switch off; repeatable' })
  allowFlags = Option.Array('--allow-flag', [], {
    description: 'Caller flag that may relax governance; repeatable',
  })

  async run(client: AdminClient): Promise<number> {
    const overrides: Record<string, Record<string, unknown>> = {}
    for (const spec of this.set) parseOverride(spec, overrides)
    for (const step of this.disable) overrides[step] = { ...overrides[step], disabled: true }
    const { body } = await client.request('POST', '/pipelines', {
      json: {
        pipeline_id: this.pipelineId,
        preset: this.preset,
        overrides,
        ...(this.allowFlags.length ? { allow_flags: this.allowFlags } : {}),
      },
    })
    this.print(
      body,
      () => `created pipeline ${body.pipeline_id} (preset ${body.preset}, version ${body.version})\n`,
    )
    return 0
  }
}
