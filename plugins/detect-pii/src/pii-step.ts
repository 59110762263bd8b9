import type {
  HookContext,
  RequestContext,
  ResponseContext,
  StepCounter,
  StepInstance,
  StepServices,
  TextPart,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { LRUCache } from 'lru-cache'
import { type AnalyzerOptions, analyzeText } from './analyze-text.js'
import type { Gazetteer } from './entities/gazetteer.js'
import { loadedGazetteer, sharedGazetteer } from './gazetteer-loader.js'
import { maskPart } from './mask-text.js'
import { type Detection, ENTITY_TYPES, PII_LEVELS, type PiiType } from './pii-types.js'
import { PLACEHOLDER, PlaceholderMap } from './placeholder-map.js'
import { restorePart } from './restore-placeholders.js'
import { ACTIONS, type PiiAction, type PiiSettings } from './settings.js'

/** Block code returned to the caller when personal data is found and the action is `block`. */
export const PII_BLOCK_CODE = 'pii_detected'
const STATE_KEY = 'placeholders'

/** One `detect_pii` step of one pipeline version. */
export class PiiStep implements StepInstance {
  readonly #settings: PiiSettings
  readonly #services: StepServices
  readonly #types: ReadonlySet<PiiType>
  readonly #cache: LRUCache<string, Detection[]> | undefined
  readonly #assignments = new LRUCache<string, string>({ max: 20_000, ttl: 10 * 60_000 })
  readonly #counter: StepCounter
  readonly #needsEntities: boolean
  readonly #allowList: ReadonlySet<string>
  #analyses = 0

  constructor(settings: PiiSettings, services: StepServices) {
    this.#settings = settings
    this.#services = services
    this.#types = new Set(settings.types)
    this.#allowList = new Set(settings.allow_list.map((v) => v.trim().toLowerCase()))
    this.#needsEntities = settings.entities && ENTITY_TYPES.some((t) => this.#types.has(t))
    this.#cache =
      settings.cache_entries > 0
        ? new LRUCache<string, Detection[]>({
            max: settings.cache_entries,
            // Bound memory by text size too: the key is the text itself.
            maxSize: 64 * 1024 * 1024,
            sizeCalculation: (value, key) => key.length * 2 + value.length * 48 + 64,
          })
        : undefined
    this.#counter = services.metrics.counter('gov_pii_detections_total', 'PII detections, by type', ['type'])
  }

  /** Resolves when the named-entity gazetteer is loaded (at once when entities are off). */
  async ready(): Promise<void> {
    if (this.#needsEntities) await sharedGazetteer()
  }

  /** True once the named-entity gazetteer can be used. */
  get entitiesReady(): boolean {
    return !this.#needsEntities || loadedGazetteer() !== undefined
  }

  /** Number of texts analysed (cache misses), for tests and diagnostics. */
  get analyses(): number {
    return this.#analyses
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const action = this.#action(ctx)
    const hits: { part: TextPart; detections: Detection[] }[] = []
    for (const message of ctx.exchange.messages) {
      for (const part of message.parts) {
        const detections = await this.#analyze(part.text)
        if (detections.length === 0) continue
        this.#report(ctx, part, detections, action)
        hits.push({ part, detections })
      }
    }
    if (hits.length === 0) return Verdicts.continue()
    if (action === 'block') return this.#block(hits.flatMap((h) => h.detections))
    if (action === 'mask') {
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
      if (fresh.length > 0 && action === 'block') return this.#block(fresh)
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
      map = new PlaceholderMap(
        this.#services.kv,
        ctx.call.sessionId,
        this.#settings.session_ttl_seconds * 1000,
        this.#assignments,
      )
      ctx.state.set(STATE_KEY, map)
    }
    return map
  }

  async #analyze(text: string): Promise<Detection[]> {
    if (!text) return []
    const cached = this.#cache?.get(text)
    if (cached) return cached
    let gazetteer: Gazetteer | undefined
    if (this.#needsEntities) gazetteer = loadedGazetteer() ?? (await sharedGazetteer())
    const options: AnalyzerOptions = {
      types: this.#types,
      minScore: this.#settings.min_score,
      allowList: this.#allowList,
      phoneRegions: this.#settings.phone_regions,
      gazetteer,
    }
    const detections = await analyzeText(text, options)
    this.#analyses++
    this.#cache?.set(text, detections)
    return detections
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
        detail: { action },
      })
      this.#counter.inc({ type: d.type })
    }
  }

  #block(detections: readonly Detection[]): Verdict {
    const types = [...new Set(detections.map((d) => d.type))].sort()
    return Verdicts.block(PII_BLOCK_CODE, `personal data detected: ${types.join(', ')}`, 403)
  }
}
