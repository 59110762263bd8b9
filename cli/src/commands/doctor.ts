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
      Checks, with the same environment \`gov serve\` would use, and reading secrets the way it does (from Vault when \`VAULT_ADDR\` is set, else the environment):

      - node: the Node.js version (≥ 20.11).
      - vault (with \`VAULT_ADDR\`): Vault answers; the workload JWT file (\`VAULT_JWT_PATH\`) exists, is unexpired and logs in with \`VAULT_ROLE\`; the static \`VAULT_TOKEN\` is valid (a token that never expires is production-unsafe); which of them gov will log in with.
      - config: the configuration reads.
      - storage: with \`DATABASE_URL\` it connects and reports the version, TLS and whether the migrations are current (nothing is changed); with \`GOV_DATA_DIR\` the folder; otherwise memory, where nothing survives a restart.
      - redis: \`REDIS_URL\` answers PING, with TLS and password reported; or in-process.
      - provider: the provider base URLs parse and their hosts accept connections (a warning when not).
      - keys, tokens: provider, admin and signing keys are present (values are never printed); the signing key imports, and with \`--url\` every gateway publishes its key id, so replicas verify each other's tokens.
      - plugins, presets: the built-in step packages and every \`GOV_PLUGINS\` entry load, and every preset resolves (in a throw-away gateway inside this process: memory storage, loopback port 0).
      - policy: the Cedar policy file (\`GOV_POLICY_FILE\` or the shipped default) parses and validates against gov's schema.
      - tls: the HTTPS certificate and key (\`GOV_TLS_CERT_FILE\`, \`GOV_TLS_KEY_FILE\`) match and have not expired; the internal CA (\`GOV_INTERNAL_CA_FILE\`) has 30 days or more left.
      - disk: the file systems of \`/\`, \`GOV_DATA_DIR\` and \`GOV_MONITOR_DISK_PATHS\` are at most 90 % full.
      - production (\`GOV_ENV=production\`): what is production-unsafe.
      - gateway (with \`--url\`, repeatable): each gateway's \`/health\`, \`/health/ready\` and \`/health/startup\`.

      Each line says how to fix what it found.

      Each line reads \`ok\`, \`warn\` or \`FAIL\` with a stable code on problems; \`--json\` prints the same as JSON. The exit code is 1 when any check fails, 0 otherwise (warnings included).
    `,
    examples: [
      ['Check this environment', '$0 doctor'],
      ['Check a running gateway as well, as JSON', '$0 doctor --url http://127.0.0.1:8080 --json'],
      [
        'Check that three replicas share one signing key',
        '$0 doctor --url https://gov-1:8443 --url https://gov-2:8443 --url https://gov-3:8443',
      ],
    ],
  })

  urls = Option.Array('--url', [], {
    description: 'Base URL of a running gateway to probe; repeat it for every replica',
  })
  json = Option.Boolean('--json', false, { description: 'Print the report as JSON' })
  timeoutMs = Option.String('--timeout', '2000', {
    description: 'Milliseconds each network probe may take',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(100, 60_000)]),
  })

  override async execute(): Promise<number> {
    const checks = await runDoctor({ env: this.context.env, urls: this.urls, timeoutMs: this.timeoutMs })
    const report = buildReport(checks, PACKAGE_VERSION)
    this.context.stdout.write(this.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report))
    return report.ok ? 0 : 1
  }
}
