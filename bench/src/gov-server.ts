/**
 * gov in its own process for the load benchmark: `startGateway` with the
 * environment the runner passes (mock provider as upstream, port 0). Prints
 * its URL when listening.
 */
import { startGateway } from '@gov/host'
import { announceReady, closeOnSignal } from './child-protocol.js'

const gateway = await startGateway({ env: process.env, logDestination: process.stderr })
closeOnSignal(() => gateway.close())
announceReady({ url: gateway.url })
