import { Command, Option } from 'clipanion'
import * as t from 'typanion'
import { buildReport, renderTable } from '../doctor/render-report.js'
import { runDoctor } from '../doctor/run-doctor.js'
import { PACKAGE_VERSION } from '../version.js'

/** `gov doctor`: check an environment (and optionally a running gateway) before and after serving. */
export class DoctorCommand extends Command {
  static override paths = [['doctor']]

  static override usage = Command.Usage({
    description: 'check the environment gov runs in',
    details: `
      Checks, with the same environment \`gov serve\` would use: the Node.js version (≥ 20.11); that the configuration reads; storage (with \`DATABASE_URL\` it connects and reports version, TLS and migrations, changing nothing; with \`GOV_DATA_DIR\` the folder; otherwise memory, where nothing survives a restart); Redis (\`REDIS_URL\` answers PING, or in-process); that the provider base URLs parse and their hosts resolve and accept connections (a warning when not, since machines without internet are normal); which provider and admin keys are set (values are never printed); which built-in step packages load and which are missing, that every \`GOV_PLUGINS\` entry loads, and that every preset resolves; and with \`GOV_ENV=production\`, what is production-unsafe.

      Plugins and presets are checked in a throw-away gateway inside this process (memory storage, loopback port 0), so nothing outside is touched.

      With \`--url\`, a running gateway's \`/health\`, \`/health/ready\` and \`/health/startup\` are probed too.

      Each line reads \`ok\`, \`warn\` or \`FAIL\` with a stable code on problems; \`--json\` prints the same as JSON. The exit code is 1 when any check fails, 0 otherwise (warnings included).
    `,
    examples: [
      ['Check this environment', '$0 doctor'],
      ['Check a running gateway as well, as JSON', '$0 doctor --url http://127.0.0.1:8080 --json'],
    ],
  })

  url = Option.String('--url', { description: 'Base URL of a running gateway to probe' })
  json = Option.Boolean('--json', false, { description: 'Print the report as JSON' })
  timeoutMs = Option.String('--timeout', '2000', {
    description: 'Milliseconds each network probe may take',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(100, 60_000)]),
  })

  override async execute(): Promise<number> {
    const checks = await runDoctor({ env: this.context.env, url: this.url, timeoutMs: this.timeoutMs })
    const report = buildReport(checks, PACKAGE_VERSION)
    this.context.stdout.write(this.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report))
    return report.ok ? 0 : 1
  }
}
