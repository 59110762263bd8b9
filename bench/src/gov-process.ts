/** gov in its own process pinned to the server core, with the mock provider as its upstream. */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { type BenchPipeline, prepareAgent, scrapeMetrics, waitStarted } from './gov-setup.js'
import type { Sample } from './metrics-text.js'
import { type MemoryProbe, type ServerProcess, startServerProcess } from './server-process.js'

export interface GovProcess {
  url: string
  /** The agent's key, for calls. */
  agentKey: string
  scrape(): Promise<Sample[]>
  /** Full GC, then memory as gov-server.ts reports it (needs `GOV_BENCH_MEMORY_PROBE=1` and `--expose-gc`). */
  probeMemory(): Promise<MemoryProbe>
  stop(): Promise<void>
}

/** Start gov from `script` (gov-server.js), wait until started, and give agent `bench` the `standard` preset. */
export async function startStandardGov(
  script: string,
  mock: ServerProcess,
  logFile: string,
  nodeFlags: readonly string[] = [],
  /** More environment for gov (storage URLs, limits). */
  extraEnv: Record<string, string> = {},
  /** The agent's pipeline; default preset `standard` with every step. */
  pipeline: BenchPipeline = { pipeline_id: 'bench-standard', preset: 'standard', overrides: {} },
): Promise<GovProcess> {
  const adminKey = `bench_admin_${randomBytes(12).toString('hex')}`
  const gov = await startServerProcess(
    'gov (standard)',
    script,
    {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GOV_PORT: '0',
      GOV_HOST: '127.0.0.1',
      GOV_ADMIN_API_KEY: adminKey,
      OPENAI_BASE_URL: String(mock.info.openaiBaseUrl),
      OPENAI_API_KEY: 'bench-provider-key',
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    logFile,
    120_000,
    nodeFlags,
  )
  try {
    await waitStarted(gov.info.url)
    const agentKey = await prepareAgent(gov.info.url, adminKey, pipeline)
    return {
      url: gov.info.url,
      agentKey,
      scrape: () => scrapeMetrics(gov.info.url, adminKey),
      probeMemory: () => gov.probeMemory(),
      stop: () => gov.stop(),
    }
  } catch (err) {
    await gov.stop()
    throw err
  }
}

/** Where the server logs of a script go. */
export function logPath(resultsDir: string, name: string): string {
  return join(resultsDir, 'logs', `${name}.log`)
}
