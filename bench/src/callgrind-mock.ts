/**
 * The mock provider of `bench:callgrind`, in its own process (as
 * `mock-server.ts`), with a 10-minute keep-alive instead of Node's 5 s: gov
 * under callgrind can pause for seconds between two calls on one provider
 * connection (a compilation or a collection run 50× slower), and a connection
 * the mock closed meanwhile fails that call with 502 `upstream_unreachable`.
 */
import { Server } from 'node:http'
import { startMockProvider } from '@gov/host/testing'
import { announceReady, closeOnSignal } from './child-protocol.js'

// startMockProvider does not hand out its server: set the keep-alive on every server as it starts listening.
const listen = Server.prototype.listen
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  this.keepAliveTimeout = 600_000
  return listen.apply(this, args as Parameters<typeof listen>)
} as typeof listen

const mock = await startMockProvider({ recordRequests: false })
closeOnSignal(() => mock.close())
announceReady({ url: mock.url, openaiBaseUrl: mock.openaiBaseUrl })
