/**
 * How the benchmark's server processes talk to the runner: one JSON line on
 * stdout when ready, and SIGTERM to stop. Anything else they print goes to
 * stderr, so stdout stays a clean channel.
 */

/** Tell the parent the server is ready, with whatever it needs to know (its URL). */
export function announceReady(info: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ready: true, ...info })}\n`)
}

/** Run `close` on SIGTERM or SIGINT, then exit 0 (1 if closing fails). */
export function closeOnSignal(close: () => Promise<void>): void {
  const stop = () => {
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`)
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
