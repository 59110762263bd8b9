import { Command, Option } from 'clipanion'
import { AdminClient, AdminError, AdminErrorCodes } from './admin-client.js'

/** Default gateway address of the admin commands. */
export const DEFAULT_URL = 'http://127.0.0.1:8080'

/**
 * Base of every admin command: `--url` (default `GOV_URL`, else
 * http://127.0.0.1:8080), `--json`, the admin key from `GOV_ADMIN_API_KEY`
 * (never a flag: flags end up in shell history and process lists), and one
 * error format: `gov: <code>: <message>` on stderr, exit 1.
 */
export abstract class AdminCommand extends Command {
  url = Option.String('--url', { description: `Gateway base URL (default $GOV_URL or ${DEFAULT_URL})` })
  json = Option.Boolean('--json', false, { description: 'Print the answer as JSON' })

  /** Do the work with a client; return the exit code. */
  abstract run(client: AdminClient): Promise<number>

  override async execute(): Promise<number> {
    try {
      const key = this.context.env.GOV_ADMIN_API_KEY?.trim()
      if (!key) {
        throw new AdminError(AdminErrorCodes.NO_KEY, 'set GOV_ADMIN_API_KEY to the gateway admin key', 0)
      }
      const url = this.url ?? (this.context.env.GOV_URL?.trim() || DEFAULT_URL)
      return await this.run(new AdminClient(url, key))
    } catch (err) {
      if (!(err instanceof AdminError)) throw err
      const status = err.status ? ` (HTTP ${err.status})` : ''
      // One line per error: a YAML parser's message carries a multi-line excerpt.
      const message = err.message.split('\n', 1)[0]!.replace(/:$/, '')
      this.context.stderr.write(`gov: ${err.code}: ${message}${status}\n`)
      return 1
    }
  }

  /** Print `value` as JSON, or `text()` unless `--json`. */
  print(value: unknown, text?: () => string): void {
    this.context.stdout.write(this.json || !text ? `${JSON.stringify(value, null, 2)}\n` : text())
  }
}

/** A plain table: a header row and left-aligned columns. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return `${[line(header), ...rows.map(line)].join('\n')}\n`
}
