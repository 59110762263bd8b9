import type {
  HookContext,
  RequestContext,
  ResponseContext,
  SessionStore,
  StepCounter,
  StepInstance,
  StepServices,
  TextPart,
  Verdict,
} from '@gov/core'
import { TextCache, Verdicts } from '@gov/core'
import { analyzerOptions, type PlainAnalyzerOptions, plainOptions } from './analysis-options.js'
import { ANALYSIS_WORKER_URL, AnalysisPool } from './analysis-pool.js'
import { type AnalyzerOptions, analyzeText } from './analyze-text.js'
import { loadedGazetteer, sharedGazetteer } from './gazetteer-loader.js'
import { maskPart } from './mask-text.js'
import { type Detection, ENTITY_TYPES, PII_LEVELS, type PiiType } from './pii-types.js'
import { PLACEHOLDER, PlaceholderMap } from './placeholder-map.js'
import { restorePart } from './restore-placeholders.js'
import { ACTIONS, type PiiAction, type PiiSettings } from './settings.js'
import { warmUpAnalyzer } from './warm-up.js'

/** Block code returned to the caller when personal data is found and the action is `block`. */
export const PII_BLOCK_CODE = 'pii_detected'
const STATE_KEY = 'placeholders'
/** Types whose score is the tagger's or the name rules' confidence: the ones `block_min_score` applies to. */
const NAME_TYPES: ReadonlySet<PiiType> = new Set(ENTITY_TYPES)

/** How a step instance is wired beyond its settings (tests swap the worker script). */
export interface PiiStepOptions {
  /** Script of the analysis worker threads; defaults to the compiled `analysis-worker.js`. */
  readonly workerUrl?: URL
}

/** True when `text` has more than `limit` UTF-8 bytes, without encoding it when its length decides. */
function exceedsBytes(text: string, limit: number): boolean {
  // A UTF-16 code unit takes one to three UTF-8 bytes (a surrogate pair four for two units).
  if (text.length > limit) return true
  if (text.length * 3 <= limit) return false
  return Buffer.byteLength(text) > limit
}

/** One `detect_pii` step of one pipeline version. */
export class PiiStep implements StepInstance {
  readonly #settings: PiiSettings
  readonly #services: StepServices
  readonly #sessions: SessionStore
  readonly #plain: PlainAnalyzerOptions
  readonly #cache: TextCache<Detection[]> | undefined
  readonly #counter: StepCounter
  readonly #needsEntities: boolean
  readonly #workerUrl: URL
  readonly #maskOnly: ReadonlySet<PiiType>
  #options: AnalyzerOptions | undefined
  #pool: AnalysisPool | undefined
  #closed = false
  #analyses = 0
  #offloaded = 0

  constructor(settings: PiiSettings, services: StepServices, options: PiiStepOptions = {}) {
    this.#settings = settings
    this.#services = services
    this.#sessions = services.sessions({ ttlMs: settings.session_ttl_seconds * 1000 })
    this.#plain = plainOptions(settings)
    this.#needsEntities = this.#plain.entities
    this.#workerUrl = options.workerUrl ?? ANALYSIS_WORKER_URL
    this.#maskOnly = new Set(settings.mask_only_types)
    this.#cache =
      settings.cache_entries > 0
        ? new TextCache<Detection[]>({
            max: settings.cache_entries,
            // Bound memory by text size too: texts up to 16 K units are kept whole.
            maxBytes: 64 * 1024 * 1024,
            sizeOfValue: (value) => value.length * 48 + 64,
          })
        : undefined
    this.#counter = services.metrics.counter('gov_pii_detections_total', 'PII detections, by type', ['type'])
  }

  /**
   * Resolves when the named-entity gazetteer is loaded (not needed when
   * entities are off) and, once per process, the analyser is warmed up.
   */
  async ready(): Promise<void> {
    const gazetteer = this.#needsEntities ? await sharedGazetteer() : undefined
    await warmUpAnalyzer(gazetteer)
  }

  /** Stops the analysis worker threads, if any were started. */
  async close(): Promise<void> {
    this.#closed = true
    const pool = this.#pool
    this.#pool = undefined
    await pool?.close()
  }

  /** True once the named-entity gazetteer can be used. */
  get entitiesReady(): boolean {
    return !this.#needsEntities || loadedGazetteer() !== undefined
  }

  /** Number of texts analysed (cache misses), for tests and diagnostics. */
  get analyses(): number {
    return this.#analyses
  }

  /** Number of texts analysed in a worker thread, for tests and diagnostics. */
  get offloaded(): number {
    return this.#offloaded
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const action = this.#action(ctx)
    const hits: { part: TextPart; detections: Detection[] }[] = []
    for (const message of ctx.exchange.messages) {
      for (const part of message.parts) {
        // A cached text needs no await (a long history is mostly cached texts); a miss is not looked up twice.
        const detections = this.#cache?.get(part.text) ?? (await this.#analyzeNew(part.text))
        if (detections.length === 0) continue
        this.#report(ctx, part, detections, action)
        hits.push({ part, detections })
      }
    }
    if (hits.length === 0) return Verdicts.continue()
    if (action === 'block') {
      // Only findings sure enough refuse; weaker names are masked like under `mask`.
      const refusing = hits.flatMap((h) => h.detections.filter((d) => this.#refuses(d)))
      if (refusing.length > 0) return this.#block(refusing)
    }
    if (action !== 'allow') {
      const map = this.#placeholders(ctx)
      for (const { part, detections } of hits) await maskPart(part, detections, map)
    }
    return Verdicts.continue()
  }

  async onBufferedResponse(ctx: ResponseContext): Promise<Verdict> {
    const action = this.#action(ctx)
    const parts = ctx.answer.message.parts
    if (this.#settings.scan_response) {
      const fresh: Detection[] = []
      for (const part of parts) {
        const text = part.text
        const placeholders = [...text.matchAll(PLACEHOLDER)].map((m) => [m.index, m.index + m[0].length])
        const detections = (await this.#analyze(text)).filter(
          (d) => !placeholders.some(([s, e]) => d.start < e && d.end > s),
        )
        if (detections.length === 0) continue
        this.#report(ctx, part, detections, action)
        fresh.push(...detections)
      }
      // Under `block`, weaker names the model produced are reported and left as they are, as under `mask`.
      const refusing = action === 'block' ? fresh.filter((d) => this.#refuses(d)) : []
      if (refusing.length > 0) return this.#block(refusing)
    }
    const map = this.#placeholders(ctx)
    if (map.size > 0 || ctx.call.sessionId) for (const part of parts) await restorePart(part, map)
    return Verdicts.continue()
  }

  #action(ctx: HookContext): PiiAction {
    const flag = ctx.call.flags.get('pii')
    return flag && (ACTIONS as readonly string[]).includes(flag) ? (flag as PiiAction) : this.#settings.action
  }

  #placeholders(ctx: HookContext): PlaceholderMap {
    let map = ctx.state.get(STATE_KEY) as PlaceholderMap | undefined
    if (!map) {
      map = new PlaceholderMap(this.#sessions.of(ctx.call))
      ctx.state.set(STATE_KEY, map)
    }
    return map
  }

  async #analyze(text: string): Promise<Detection[]> {
    if (!text) return []
    return this.#cache?.get(text) ?? this.#analyzeNew(text)
  }

  /** Analyses a text the cache does not hold, and caches the result. */
  async #analyzeNew(text: string): Promise<Detection[]> {
    if (!text) return []
    const offload = this.#settings.offload_above_bytes
    const detections =
      offload > 0 && exceedsBytes(text, offload)
        ? await this.#analyzeLong(text)
        : await analyzeText(text, this.#options ?? (await this.#loadOptions()))
    this.#analyses++
    this.#cache?.set(text, detections)
    return detections
  }

  /** The analyser options, once the gazetteer (if needed) is loaded. */
  async #loadOptions(): Promise<AnalyzerOptions> {
    const gazetteer = this.#needsEntities ? (loadedGazetteer() ?? (await sharedGazetteer())) : undefined
    this.#options = analyzerOptions(this.#plain, gazetteer)
    return this.#options
  }

  /**
   * Starts the analysis worker threads now rather than at the first long
   * text; resolves true once one can take texts (false when offloading is off
   * or no thread could start). Long texts that arrive before that are analysed
   * in-thread, in pieces that yield to the event loop.
   */
  startWorkers(): Promise<boolean> {
    const pool = this.#workerPool()
    return pool ? pool.start() : Promise.resolve(false)
  }

  #workerPool(): AnalysisPool | undefined {
    if (this.#closed || this.#settings.offload_above_bytes === 0) return undefined
    this.#pool ??= new AnalysisPool(
      this.#plain,
      this.#settings.offload_threads,
      this.#services.logger,
      this.#workerUrl,
    )
    return this.#pool
  }

  /**
   * Analyses a long text in a worker thread when one is ready. If none is
   * ready yet, or the worker fails, the text is analysed here instead, in
   * pieces that yield to the event loop: the result is the same, only the
   * event loop is less well protected for that text.
   */
  async #analyzeLong(text: string): Promise<Detection[]> {
    const job = this.#workerPool()?.analyze(text)
    if (job) {
      try {
        const detections = await job
        this.#offloaded++
        return detections
      } catch (err) {
        this.#services.logger.warn(
          { code: (err as { code?: string }).code, chars: text.length },
          'detect_pii: analysis worker failed, analysing the text in-thread',
        )
      }
    }
    return analyzeText(text, this.#options ?? (await this.#loadOptions()))
  }

  /**
   * True when `d` refuses the call under action `block`: a structured finding or a name at `block_min_score`
   * or above, unless its type is in `mask_only_types`.
   */
  #refuses(d: Detection): boolean {
    if (this.#maskOnly.has(d.type)) return false
    return !NAME_TYPES.has(d.type) || d.score >= this.#settings.block_min_score
  }

  #report(ctx: HookContext, part: TextPart, detections: readonly Detection[], action: PiiAction): void {
    for (const d of detections) {
      ctx.report({
        type: d.type,
        score: d.score,
        level: PII_LEVELS[d.type],
        span: { partId: part.id, start: d.start, end: d.end },
        source: part.source,
        messageIndex: part.messageIndex,
        // The action taken on this finding: a weak name under `block` is masked.
        detail: { action: action === 'block' && !this.#refuses(d) ? 'mask' : action },
      })
      this.#counter.inc({ type: d.type })
    }
  }

  #block(detections: readonly Detection[]): Verdict {
    const types = [...new Set(detections.map((d) => d.type))].sort()
    return Verdicts.block(PII_BLOCK_CODE, `personal data detected: ${types.join(', ')}`, 403)
  }
}
