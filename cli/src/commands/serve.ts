import { startGateway } from '@gov/host'
import { Command } from 'clipanion'
import { describeStartupError, ServeErrorCodes } from '../serve/describe-startup-error.js'
import { waitForSignal } from '../serve/wait-for-signal.js'

/** How long a graceful stop may take before `gov serve` gives up and exits 1. */
const CLOSE_TIMEOUT_MS = 10_000

/** `gov serve`: run the gateway until SIGINT or SIGTERM. */
export class ServeCommand extends Command {
  static override paths = [['serve']]

  static override usage = Command.Usage({
    description: 'run the gateway',
    details: `
      Starts gov with the configuration in the environment and serves until it receives SIGINT or SIGTERM, then stops accepting calls, closes connections, storage and the key-value store, and exits 0.

      Configuration (all optional): \`GOV_PORT\` (8080), \`GOV_HOST\` (127.0.0.1), \`GOV_ENV\` (development), \`LOG_LEVEL\` (info), \`DATABASE_URL\` or \`GOV_DATA_DIR\` (storage; memory when neither is set), \`REDIS_URL\` (in-process when unset), \`OPENAI_BASE_URL\`, \`ANTHROPIC_BASE_URL\`, \`OPENAI_API_KEY\`, \`ANTHROPIC_API_KEY\`, \`GOV_ADMIN_API_KEY\` (generated and printed once when unset, outside production), \`GOV_PLUGINS\` (extra step packages, comma separated), \`GOV_DEFAULT_PRESET\` (standard).

      Logs are JSON lines on stdout; the line \`gov listening\` carries the URL. When the gateway cannot start (invalid configuration, port in use, a plugin that does not load) one line \`gov: <code>: <reason>\` goes to stderr and the exit code is 1. Run \`gov doctor\` to check an environment before serving.
    `,
    examples: [
      ['Serve on the default port', '$0 serve'],
      [
        'Serve on port 9000 with a PostgreSQL database',
        'GOV_PORT=9000 DATABASE_URL=postgres://gov@db/gov $0 serve',
      ],
    ],
  })

  override async execute(): Promise<number> {
    let gateway: Awaited<ReturnType<typeof startGateway>>
    try {
      gateway = await startGateway({ env: this.context.env })
    } catch (err) {
      const { code, line } = describeStartupError(err)
      this.context.stderr.write(`gov: ${code}: ${line}\n`)
      return 1
    }
    const signal = await waitForSignal()
    gateway.logger.info({ signal }, 'gov stopping')
    let timer: NodeJS.Timeout | undefined
    const outcome = await Promise.race([
      gateway.close().then(
        () => 'closed' as const,
        (err: unknown) => {
          const message = (err instanceof Error ? err.message : String(err)).split('\n', 1)[0]
          this.context.stderr.write(`gov: ${ServeErrorCodes.CLOSE_FAILED}: ${message}\n`)
          return 'failed' as const
        },
      ),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS)
      }),
    ]).finally(() => clearTimeout(timer))
    if (outcome === 'timeout') {
      this.context.stderr.write(
        `gov: ${ServeErrorCodes.CLOSE_TIMEOUT}: still closing after ${CLOSE_TIMEOUT_MS} ms; exiting\n`,
      )
    }
    if (outcome !== 'closed') return 1
    gateway.logger.info('gov stopped')
    return 0
  }
}
