import type { PipelineRecord } from '../storage/store.js'
import { Chain, type ChainStep } from './chain.js'
import { resolvePipeline } from './pipeline-resolver.js'
import type { PluginRegistry } from './plugin-registry.js'
import { PRESETS } from './presets.js'
import { createStepServices, type StepServiceDeps } from './step-services.js'

/**
 * Builds chains once per pipeline version and keeps them. A pipeline update
 * bumps its version, so the next call builds the new chain and the old one is
 * closed; nothing is rebuilt per request.
 */
export class ChainBuilder {
  readonly #chains = new Map<string, Promise<Chain>>()
  /** The chains of {@link #chains} that finished building, for callers that need not wait. */
  readonly #built = new Map<string, Chain>()
  /** pipeline id → key of its current chain, to close the previous version. */
  readonly #current = new Map<string, string>()

  constructor(
    private readonly registry: PluginRegistry,
    private readonly deps: StepServiceDeps,
  ) {}

  /** The chain for a pipeline, or for a bare preset when the agent has no pipeline. */
  get(pipeline: PipelineRecord | undefined, defaultPreset: string): Promise<Chain> {
    return this.#get(chainKey(pipeline, defaultPreset), pipeline, defaultPreset)
  }

  /** {@link get} without a promise once the chain is built (the hot path). */
  getNow(pipeline: PipelineRecord | undefined, defaultPreset: string): Chain | Promise<Chain> {
    const key = chainKey(pipeline, defaultPreset)
    return this.#built.get(key) ?? this.#get(key, pipeline, defaultPreset)
  }

  #get(key: string, pipeline: PipelineRecord | undefined, defaultPreset: string): Promise<Chain> {
    let chain = this.#chains.get(key)
    if (!chain) {
      const building = this.#build(key, pipeline, defaultPreset)
      chain = building
      this.#chains.set(key, building)
      building.then(
        (built) => {
          if (this.#chains.get(key) === building) this.#built.set(key, built)
        },
        () => this.#chains.delete(key),
      )
      if (pipeline) this.#retire(pipeline.pipeline_id, key)
    }
    return chain
  }

  /** Every chain built so far (for readiness). */
  async all(): Promise<Chain[]> {
    const settled = await Promise.allSettled(this.#chains.values())
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  }

  /** Drop a deleted pipeline's chain. */
  forget(pipelineId: string): void {
    const key = this.#current.get(pipelineId)
    if (key) this.#drop(key)
    this.#current.delete(pipelineId)
  }

  async close(): Promise<void> {
    const chains = await this.all()
    this.#chains.clear()
    this.#built.clear()
    await Promise.allSettled(chains.map((c) => c.close()))
  }

  #retire(pipelineId: string, key: string): void {
    const previous = this.#current.get(pipelineId)
    this.#current.set(pipelineId, key)
    if (previous && previous !== key) this.#drop(previous)
  }

  #drop(key: string): void {
    const chain = this.#chains.get(key)
    this.#chains.delete(key)
    this.#built.delete(key)
    // Calls in flight keep their chain object; closing waits a moment so they finish.
    chain?.then((c) => setTimeout(() => void c.close(), 30_000).unref()).catch(() => {})
  }

  async #build(key: string, pipeline: PipelineRecord | undefined, defaultPreset: string): Promise<Chain> {
    const resolved = resolvePipeline(
      this.registry,
      pipeline?.preset ?? defaultPreset,
      pipeline?.overrides ?? {},
    )
    const steps: ChainStep[] = []
    for (const step of resolved.steps) {
      if (step.status === 'missing') {
        this.deps.logger.warn(
          { step: step.name, package: step.package, chain: key },
          'step skipped: package not installed',
        )
        continue
      }
      if (step.status !== 'active') continue
      const loaded = this.registry.get(step.name)
      if (!loaded) continue
      const instance = await loaded.plugin.create(step.settings, createStepServices(step.name, this.deps))
      steps.push({
        name: step.name,
        plugin: loaded.plugin,
        instance,
        settings: step.settings,
        onError: step.on_error,
      })
    }
    const mode = PRESETS[resolved.preset]?.mode ?? 'enforce'
    return new Chain(
      key,
      pipeline?.pipeline_id,
      pipeline?.version ?? 0,
      mode,
      new Set(pipeline?.allow_flags ?? []),
      steps,
      resolved,
    )
  }
}

/** The key of a pipeline version's chain, or of a bare preset's. */
function chainKey(pipeline: PipelineRecord | undefined, defaultPreset: string): string {
  return pipeline ? `pipeline:${pipeline.pipeline_id}@${pipeline.version}` : `preset:${defaultPreset}`
}
