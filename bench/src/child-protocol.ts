/**
 * How the benchmark's server processes talk to the runner: one JSON line on
 * stdout when ready, and SIGTERM to stop. Anything else they print goes to
 * stderr, so stdout stays a clean channel.
 */
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'

/** Tell the parent the server is ready, with whatever it needs to know (its URL). */
export function announceReady(info: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ready: true, ...info })}\n`)
}

/**
 * Collect garbage (needs `--expose-gc`), then print what the process retains as
 * one `{"memory":{rss,heapUsed,heapTotal,external,arrayBuffers,snapshot?}}` line;
 * with `heapDir`, write a heap snapshot there first (its path is in the line).
 */
export function announceMemory(heapDir: string | undefined): void {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const snapshot = heapDir
    ? writeHeapSnapshot(join(heapDir, `gov-${process.pid}-${Date.now()}.heapsnapshot`))
    : undefined
  const m = process.memoryUsage()
  const memory = {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    collected: gc !== undefined,
    ...(snapshot ? { snapshot } : {}),
  }
  process.stdout.write(`${JSON.stringify({ memory })}\n`)
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
