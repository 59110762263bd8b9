/**
 * gov in its own process for the load benchmark: `startGateway` with the
 * environment the runner passes (mock provider as upstream, port 0). Prints
 * its URL when listening.
 *
 * With `GOV_BENCH_MEMORY_PROBE=1` (and node's `--expose-gc`), SIGUSR2 runs a
 * full garbage collection and prints one `{"memory":…}` line on stdout — what
 * the process retains, not the garbage it has not collected yet; with
 * `GOV_BENCH_HEAP_DIR` set it also writes a heap snapshot there (`bench:memory`).
 */
import { startGateway } from '@gov/host'
import { announceMemory, announceReady, closeOnSignal } from './child-protocol.js'

const gateway = await startGateway({ env: process.env, logDestination: process.stderr })
closeOnSignal(() => gateway.close())
if (process.env.GOV_BENCH_MEMORY_PROBE === '1') {
  process.on('SIGUSR2', () => announceMemory(process.env.GOV_BENCH_HEAP_DIR))
}
announceReady({ url: gateway.url })
