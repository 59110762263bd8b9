import type { FlagDeclaration, Mode, StepInstance, StepPlugin } from '@gov/core'
import type { OnError, ResolvedPipeline } from './pipeline-resolver.js'

/** One runnable step of a chain. */
export interface ChainStep {
  readonly name: string
  readonly plugin: StepPlugin
  readonly instance: StepInstance
  readonly settings: Readonly<Record<string, unknown>>
  readonly onError: OnError
}

/** A caller flag a chain understands: its values (least strict first) and the pipeline's own value. */
export interface FlagRule {
  readonly values: readonly string[]
  readonly baseline: string
}

/**
 * The steps of one pipeline version, built once and reused for every call of
 * every agent on that pipeline. `ready` resolves when every step's `ready()` did.
 */
export class Chain {
  #ready = false
  #readyError: Error | undefined
  readonly ready: Promise<void>
  readonly flagRules: ReadonlyMap<string, FlagRule>

  constructor(
    /** Cache key: `pipeline:<id>@<version>` or `preset:<name>`. */
    readonly key: string,
    readonly pipelineId: string | undefined,
    readonly version: number,
    readonly mode: Mode,
    readonly allowFlags: ReadonlySet<string>,
    readonly steps: readonly ChainStep[],
    readonly resolved: ResolvedPipeline,
  ) {
    const rules = new Map<string, FlagRule>([['mode', { values: ['observe', 'enforce'], baseline: mode }]])
    for (const step of steps) {
      for (const [flag, decl] of Object.entries(step.plugin.flags ?? {}) as [string, FlagDeclaration][]) {
        const baseline = String(step.settings[decl.setting] ?? decl.values[0])
        const existing = rules.get(flag)
        // Two steps reading one flag: the stricter baseline wins, so a flag never relaxes either.
        if (!existing || decl.values.indexOf(baseline) > existing.values.indexOf(existing.baseline)) {
          rules.set(flag, { values: decl.values, baseline })
        }
      }
    }
    this.flagRules = rules
    this.ready = Promise.all(steps.map((s) => s.instance.ready?.())).then(
      () => {
        this.#ready = true
      },
      (err: Error) => {
        this.#readyError = err
        throw err
      },
    )
    this.ready.catch(() => {})
  }

  get isReady(): boolean {
    return this.#ready
  }

  get readyError(): Error | undefined {
    return this.#readyError
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.steps.map((s) => s.instance.close?.()))
  }
}
