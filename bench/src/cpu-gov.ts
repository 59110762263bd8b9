/**
 * gov in its own process for `bench:cpu` (`cpu-per-call.ts`): `startGateway`
 * from the module named by `GOV_BENCH_HOST_MODULE` (default `@gov/host`; a path
 * to another build's `dist/src/index.js` compares two builds in one run).
 * Prints its URL when listening; each line `cpu` on stdin is answered with one
 * `{"cpu":µs}` line on stdout: `process.cpuUsage()` user + system so far.
 * With `GOV_BENCH_BARE_UPSTREAM` (an origin) it runs the bare pass-through proxy
 * (`bare-proxy.ts`) instead, as the floor any proxy pays (HTTP in and out, sockets).
 */
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { announceReady, closeOnSignal } from './child-protocol.js'

type HostModule = typeof import('@gov/host')

async function start(): Promise<{ url: string; close(): Promise<void> }> {
  // The floor: the bare pass-through proxy in the same harness.
  const bare = process.env.GOV_BENCH_BARE_UPSTREAM
  if (bare) return (await import('./bare-proxy.js')).startBareProxy(bare)
  const named = process.env.GOV_BENCH_HOST_MODULE
  const host = (await import(
    named && named !== '@gov/host' ? pathToFileURL(named).href : '@gov/host'
  )) as HostModule
  return host.startGateway({ env: process.env, logDestination: process.stderr })
}

const server = await start()
closeOnSignal(() => server.close())
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'cpu') return
  const { user, system } = process.cpuUsage()
  process.stdout.write(`${JSON.stringify({ cpu: user + system })}\n`)
})
announceReady({ url: server.url })
