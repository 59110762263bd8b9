import { GovError } from '@gov/core'
import { CREDENTIAL_CACHE_TTL_MS } from '../agents/agent-service.js'
import type { Invalidator } from '../agents/invalidator.js'
import type { AdminAudit, AdminChange } from '../audit/admin-entry.js'
import { type ResolvedStep, resolvePipeline } from '../chain/pipeline-resolver.js'
import type { PluginRegistry } from '../chain/plugin-registry.js'
import { DeadlineMap } from '../kv/deadline-map.js'
import { findUnstorable } from '../storage/storable.js'
import type { PipelineInput, PipelineRecord, Store } from '../storage/store.js'

/** A pipeline as the API shows it: the record plus its resolved steps. */
export interface PipelineView extends PipelineRecord {
  mode: string
  steps: ResolvedStep[]
}

/** Most pipelines kept in the cache (the oldest kept goes first past it). */
const MAX_CACHED_PIPELINES = 5_000

/**
 * Pipelines: validated against the loaded plugins before they are stored (an
 * unknown step or invalid settings never reaches the database), cached for the
 * hot path, invalidated on every replica when they change.
 */
export class PipelineService {
  /**
   * Cached pipelines by id, each read again past its deadline: same bound as
   * credentials, a change reaches a replica cut off from the bus within 5 s.
   */
  readonly #cache: DeadlineMap<string, PipelineRecord>

  constructor(
    private readonly store: Store,
    private readonly registry: PluginRegistry,
    private readonly invalidator: Invalidator,
    private readonly onRemoved: (pipelineId: string) => void,
    cacheTtlMs = CREDENTIAL_CACHE_TTL_MS,
  ) {
    this.#cache = new DeadlineMap({ ttlMs: cacheTtlMs, max: MAX_CACHED_PIPELINES })
    invalidator.on('pipeline', (id) => this.#cache.delete(id))
    invalidator.onReset(() => this.#cache.clear())
  }

  /** For the hot path: cached. */
  async find(pipelineId: string): Promise<PipelineRecord | undefined> {
    return this.findNow(pipelineId)
  }

  /** {@link find} without a promise when the pipeline is cached. */
  findNow(pipelineId: string): PipelineRecord | Promise<PipelineRecord | undefined> {
    return this.#cache.get(pipelineId) ?? this.#load(pipelineId)
  }

  async #load(pipelineId: string): Promise<PipelineRecord | undefined> {
    const record = await this.store.getPipeline(pipelineId)
    if (record) this.#cache.set(pipelineId, record)
    return record
  }

  async get(pipelineId: string): Promise<PipelineRecord> {
    const record = await this.store.getPipeline(pipelineId)
    if (!record) throw new GovError('not_found', `pipeline ${pipelineId} does not exist`, 404)
    return record
  }

  list(): Promise<PipelineRecord[]> {
    return this.store.listPipelines()
  }

  view(record: PipelineRecord): PipelineView {
    const resolved = resolvePipeline(this.registry, record.preset, record.overrides)
    return { ...record, mode: resolved.mode, steps: [...resolved.steps] }
  }

  /** Create a pipeline and its audit record in one transaction (see {@link AdminAudit.commit}). */
  async create(
    input: PipelineInput,
    audit: AdminAudit,
    describe: (record: PipelineRecord) => AdminChange,
  ): Promise<PipelineRecord> {
    this.#check(input)
    return audit.commit((store) => store.createPipeline(input), describe)
  }

  async update(
    input: PipelineInput,
    audit: AdminAudit,
    describe: (record: PipelineRecord) => AdminChange,
  ): Promise<PipelineRecord> {
    this.#check(input)
    const record = await audit.commit((store) => store.updatePipeline(input), describe)
    await this.invalidator.publish('pipeline', input.pipeline_id)
    return record
  }

  /** Create or replace (import). `created` tells which. */
  async upsert(
    input: PipelineInput,
    audit: AdminAudit,
    describe: (record: PipelineRecord, created: boolean) => AdminChange,
  ): Promise<{ record: PipelineRecord; created: boolean }> {
    this.#check(input)
    const result = await audit.commit(
      async (store) =>
        (await store.getPipeline(input.pipeline_id))
          ? { record: await store.updatePipeline(input), created: false }
          : { record: await store.createPipeline(input), created: true },
      ({ record, created }) => describe(record, created),
    )
    if (!result.created) await this.invalidator.publish('pipeline', input.pipeline_id)
    return result
  }

  async delete(pipelineId: string, audit: AdminAudit, describe: () => AdminChange): Promise<void> {
    await audit.commit((store) => store.deletePipeline(pipelineId), describe)
    await this.invalidator.publish('pipeline', pipelineId)
    this.onRemoved(pipelineId)
  }

  /** What every store accepts, and steps and settings the loaded plugins know. */
  #check(input: PipelineInput): void {
    checkStorable(input)
    resolvePipeline(this.registry, input.preset, input.overrides)
  }
}

/** 400 `invalid_request` for text that some store kind cannot hold (NUL, lone surrogates). */
function checkStorable(input: PipelineInput): void {
  const path = findUnstorable(input)
  if (path === undefined) return
  // The path may quote a key the caller sent; JSON.stringify escapes what it cannot print.
  throw new GovError(
    'invalid_request',
    `invalid body: ${JSON.stringify(path)} holds a NUL character or a lone UTF-16 surrogate, which storage refuses`,
    400,
    { problems: [{ path, message: 'must not contain NUL or lone surrogates' }] },
  )
}
