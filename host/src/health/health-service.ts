import type { Authorizer } from '../auth/authorizer.js'
import type { ChainBuilder } from '../chain/chain-builder.js'
import type { SecretProblem } from '../secrets/secret-source.js'
import { secretWarnings } from '../secrets/secret-warnings.js'
import type { Store } from '../storage/store.js'

export type CheckValue = 'ok' | 'error'

/** The readiness checks the spec fixes. */
export interface ReadyChecks {
  database: CheckValue
  policy: CheckValue
  redis: CheckValue
}

const CHECK_TIMEOUT_MS = 2_000

async function within(probe: () => Promise<boolean>): Promise<CheckValue> {
  let timer: NodeJS.Timeout | undefined
  try {
    const ok = await Promise.race([
      probe(),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS)
      }),
    ])
    return ok ? 'ok' : 'error'
  } catch {
    return 'error'
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Health of the process and its dependencies. On the embedded defaults the
 * memory store and in-process key-value store are the stand-ins, and they are
 * healthy, so a single-machine gov is ready.
 */
export class HealthService {
  /** Whether the chains built at start have all become ready (their steps' `ready()`). */
  #warmDone = false
  #warmError: Error | undefined

  constructor(
    private readonly deps: {
      store: Store
      kvHealthy: () => Promise<boolean>
      kvKind: string
      authorizer: Authorizer
      chains: ChainBuilder
      version: string
      env: string
      secretsKind: string
      /** Secrets whose last read failed (Vault). */
      secretProblems?: () => readonly SecretProblem[]
    },
  ) {}

  /** Track the start-up chain builds (model loading). */
  warming(promise: Promise<unknown>): void {
    promise.then(
      () => {
        this.#warmDone = true
      },
      (err: Error) => {
        this.#warmError = err
      },
    )
  }

  async checks(): Promise<ReadyChecks> {
    const [database, redis] = await Promise.all([
      within(() => this.deps.store.healthy()),
      within(this.deps.kvHealthy),
    ])
    return { database, policy: this.deps.authorizer.loaded ? 'ok' : 'error', redis }
  }

  async ready(): Promise<{ status: number; body: { status: string; checks: ReadyChecks } }> {
    const checks = await this.checks()
    const ok = Object.values(checks).every((v) => v === 'ok')
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', checks } }
  }

  /** 503 until every start-up chain's steps are ready (models loaded) and dependencies are healthy. */
  async startup(): Promise<{ status: number; body: Record<string, unknown> }> {
    const checks = await this.checks()
    const chains = await this.deps.chains.all()
    const loading = chains.filter((c) => !c.isReady && !c.readyError).length
    const failed = chains.filter((c) => c.readyError).length
    const models: CheckValue | 'loading' =
      this.#warmError || failed ? 'error' : this.#warmDone && loading === 0 ? 'ok' : 'loading'
    const ok = models === 'ok' && checks.database === 'ok' && checks.policy === 'ok'
    return {
      status: ok ? 200 : 503,
      body: {
        status: ok ? 'ok' : 'starting',
        checks: { database: checks.database, policy: checks.policy, models },
      },
    }
  }

  /** Legacy `/health`: same checks as readiness, the legacy body, plus what runs where. */
  async legacy(): Promise<{ status: number; body: Record<string, unknown> }> {
    const { status } = await this.ready()
    const warnings: string[] = []
    warnings.push(...secretWarnings(this.deps.env, this.deps.secretsKind, this.deps.secretProblems?.() ?? []))
    // E.g. the memory store's audit cap dropped records: the trail no longer starts at seq 1.
    warnings.push(...(this.deps.store.warnings?.() ?? []))
    if (this.deps.env === 'production' && this.deps.store.kind === 'memory') {
      warnings.push('production_unsafe: storage is memory; pipelines, agents and keys are lost on restart')
    }
    return {
      status,
      body: {
        status: status === 200 ? 'healthy' : 'unhealthy',
        version: this.deps.version,
        storage: this.deps.store.kind,
        kv: this.deps.kvKind,
        secrets: this.deps.secretsKind,
        ...(warnings.length ? { warnings } : {}),
      },
    }
  }
}
