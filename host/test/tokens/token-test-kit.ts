/** Shared set-up of the token tests: a secret source tests can change, a fake clock, a token service. */
import { generateKeyPairSync } from 'node:crypto'
import { Writable } from 'node:stream'
import { createLogger, type Logger } from '../../src/logging.js'
import { GovMetrics } from '../../src/metrics/metrics.js'
import type { SecretSource } from '../../src/secrets/secret-source.js'
import type { CapabilityGrant } from '../../src/tokens/capability-claims.js'
import { TokenService } from '../../src/tokens/token-service.js'
import { DEFAULT_TOKEN_SETTINGS, type TokenSettings } from '../../src/tokens/token-settings.js'

/** A secret source whose values a test sets, recording invalidations. */
export class TestSecrets implements SecretSource {
  readonly kind = 'test'
  readonly values = new Map<string, string>()
  readonly invalidated: string[] = []
  async get(name: string): Promise<string | undefined> {
    return this.values.get(name)
  }
  invalidate(name: string): void {
    this.invalidated.push(name)
  }
}

/** A clock a test moves by hand. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now = (): number => this.ms
  advance(seconds: number): void {
    this.ms += seconds * 1000
  }
}

/** A logger whose JSON lines a test can read. */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    },
  })
  const logger = createLogger(level, sink)
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  }
}

export interface Kit {
  tokens: TokenService
  secrets: TestSecrets
  clock: TestClock
  metrics: GovMetrics
  logs: () => Record<string, unknown>[]
}

/** A started token service on a fake clock. */
export async function tokenKit(
  options: {
    settings?: Partial<TokenSettings>
    secrets?: TestSecrets
    clock?: TestClock
    production?: boolean
  } = {},
): Promise<Kit> {
  const secrets = options.secrets ?? new TestSecrets()
  const clock = options.clock ?? new TestClock()
  const metrics = new GovMetrics()
  const { logger, lines } = captureLogger()
  const tokens = new TokenService({
    settings: { ...DEFAULT_TOKEN_SETTINGS, ...options.settings },
    secrets,
    metrics,
    logger,
    production: options.production ?? false,
    now: clock.now,
  })
  await tokens.start()
  return { tokens, secrets, clock, metrics, logs: lines }
}

/** A grant as the gateway builds it for an allowed call. */
export function sampleGrant(overrides: Partial<CapabilityGrant> = {}): CapabilityGrant {
  return {
    agentId: 'agent-1',
    sessionId: 'sess-42',
    pipeline: 'support',
    pipelineVersion: 3,
    classification: 'confidential',
    tools: ['search', 'send_email'],
    labels: [],
    ...overrides,
  }
}

/** The value of `gov_capability_tokens_total{result}`. */
export async function tokenCount(metrics: GovMetrics, result: string): Promise<number> {
  const { values } = await metrics.capabilityTokens.get()
  return values.find((v) => v.labels.result === result)?.value ?? 0
}

/** A private key as `GOV_TOKEN_SIGNING_KEY` would hold it. */
export function privateKeyText(
  kind: 'ed25519-jwk' | 'ed25519-pem' | 'p256-pem' | 'p256-jwk' | 'rsa-pem',
): string {
  if (kind === 'rsa-pem') {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
  }
  const { privateKey } = kind.startsWith('ed25519')
    ? generateKeyPairSync('ed25519')
    : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return kind.endsWith('jwk')
    ? JSON.stringify(privateKey.export({ format: 'jwk' }))
    : privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
}
