import { pino } from 'pino'
import type { Logger } from '../../src/logging.js'
import { VaultAuth } from '../../src/secrets/vault-auth.js'
import { VaultClient } from '../../src/secrets/vault-client.js'
import { VaultSecretSource, type VaultSecretSourceOptions } from '../../src/secrets/vault-secret-source.js'
import { readVaultSettings } from '../../src/secrets/vault-settings.js'
import type { FakeVault } from '../../src/testing/fake-vault.js'

/** A log line as pino wrote it. */
export interface LogLine {
  level: number
  msg: string
  [key: string]: unknown
}

/** A debug-level logger that keeps its lines for assertions. */
export function captureLogger(): { logger: Logger; lines: LogLine[]; warnings: () => LogLine[] } {
  const lines: LogLine[] = []
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) })
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40) }
}

/** A settable test clock in ms; it starts far from 0 (lru-cache reads a start time of 0 as "no TTL"). */
export function testClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start
  return {
    now: () => t,
    advance: (ms) => {
      t += ms
    },
  }
}

/**
 * The env gov gets to talk to `fake`: JWT login first, static token fallback,
 * Vault's default 5 s request timeout (a 300 ms one timed out on a loaded CI
 * machine, so a read fell back to the cached value; the test of a slow Vault
 * sets its own).
 */
export function vaultEnv(fake: FakeVault, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    VAULT_ADDR: fake.url,
    VAULT_ROLE: fake.role,
    VAULT_JWT_PATH: fake.jwtPath,
    VAULT_TOKEN: fake.staticToken,
    VAULT_TIMEOUT_MS: '5000',
    ...extra,
  }
}

/** A Vault secret source wired as createSecretSource does, with the clock and jitter under test control. */
export function makeSource(
  env: NodeJS.ProcessEnv,
  options: Partial<Omit<VaultSecretSourceOptions, 'client' | 'auth' | 'settings' | 'env'>> & {
    renewInBackground?: boolean
  } = {},
): {
  source: VaultSecretSource
  auth: VaultAuth
  logger: Logger
  lines: LogLine[]
  warnings: () => LogLine[]
} {
  const captured = captureLogger()
  const logger = options.logger ?? captured.logger
  const settings = readVaultSettings(env)
  const client = new VaultClient(settings)
  const auth = new VaultAuth({
    client,
    settings,
    logger,
    now: options.now,
    renewInBackground: options.renewInBackground ?? false,
  })
  const source = new VaultSecretSource({ ...options, client, auth, settings, env, logger })
  return { source, auth, logger, lines: captured.lines, warnings: captured.warnings }
}
