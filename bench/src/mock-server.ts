/** The mock provider in its own process (the benchmark's upstream); prints its URLs when ready. */
import { startMockProvider } from '@gov/host/testing'
import { announceReady, closeOnSignal } from './child-protocol.js'

// Recording requests would grow memory with every call of a load run.
const mock = await startMockProvider({ recordRequests: false })
closeOnSignal(() => mock.close())
announceReady({ url: mock.url, openaiBaseUrl: mock.openaiBaseUrl })
