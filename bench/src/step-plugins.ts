import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import type { StepPlugin } from '@gov/core'
import { BUILTIN_STEPS, startGateway, TOKENS } from '@gov/host'

/** What the benchmark reads from the host's plugin registry (the host does not export the class). */
interface RegistryView {
  get(name: string): { plugin: StepPlugin } | undefined
  listMissing(): { name: string; packageName: string; reason: string }[]
}

/** The built-in steps as the host loads them. */
export interface LoadedSteps {
  loaded: StepPlugin[]
  missing: { name: string; packageName: string; reason: string }[]
}

const discard = new Writable({
  write(_chunk, _encoding, done) {
    done()
  },
})

/**
 * Load the built-in step plugins exactly as the host does (its PluginRegistry,
 * with the core-range and shape checks), by starting a throw-away gateway in
 * memory on a loopback port and reading its registry; the plugin objects stay
 * usable after it closes.
 */
export async function loadBuiltinSteps(): Promise<LoadedSteps> {
  const gateway = await startGateway({
    env: {
      GOV_PORT: '0',
      GOV_HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      GOV_ADMIN_API_KEY: `bench_${randomBytes(8).toString('hex')}`,
    },
    logDestination: discard,
  })
  try {
    const registry = gateway.container.resolve<RegistryView>(TOKENS.Registry)
    const loaded = BUILTIN_STEPS.map((s) => registry.get(s.name)?.plugin).filter(
      (p): p is StepPlugin => p !== undefined,
    )
    return { loaded, missing: registry.listMissing() }
  } finally {
    await gateway.close()
  }
}
