import {
  type ClassificationLevel,
  type HookContext,
  levelRank,
  type RequestContext,
  type ResponseContext,
  type StepCounter,
  type StepInstance,
  type StepServices,
  TextCache,
  type TextPart,
  type Verdict,
  Verdicts,
} from '@gov/core'
import { BusinessDetector } from './business-detector.js'
import type { Detection } from './detection.js'
import { maskText, PlaceholderBook } from './mask-text.js'
import type { BelowBlockAction, BusinessSettings } from './settings.js'

/** Verdict code when a finding reaches `block_level`. */
export const BLOCK_CODE = 'business_data_detected'
/** Caller flag (`X-Gov-Flags: business=mask`) that overrides `action` for one call. */
export const ACTION_FLAG = 'business'
/** Metric counting text analyses by cache result (`hit` / `miss`). */
export const CACHE_METRIC = 'gov_business_scan_cache_total'

const NO_DETECTIONS: readonly Detection[] = Object.freeze([])
const STATE_PLACEHOLDERS = 'placeholders'

/** Cache results of one call, counted into the metric once at its end. */
interface Tally {
  hit: number
  miss: number
}

/** Cached detections are shared by every later call, so nothing downstream may change them. */
function freezeDetection(detection: Detection): Detection {
  for (const value of Object.values(detection.detail)) if (typeof value === 'object') Object.freeze(value)
  Object.freeze(detection.detail)
  return Object.freeze(detection)
}

/** The more sensitive detection of two, the first on ties. */
function worse(a: Detection | undefined, b: Detection): Detection {
  return a && levelRank(a.level) >= levelRank(b.level) ? a : b
}

/**
 * One configured `detect_business` step: analysis per text is cached (a long
 * conversation costs about its newest text per turn); findings are reported on
 * every turn, a finding at or above `block_level` blocks, and below it the
 * step reports or masks according to `action`.
 */
export class BusinessStep implements StepInstance {
  readonly #detector: BusinessDetector
  readonly #cache: TextCache<readonly Detection[]> | undefined
  readonly #counter: StepCounter
  readonly #blockRank: number
  readonly #action: BelowBlockAction

  constructor(settings: BusinessSettings, services: StepServices) {
    this.#detector = new BusinessDetector(settings)
    this.#cache =
      settings.cache_size > 0
        ? new TextCache({ max: settings.cache_size, sizeOfValue: (d) => 64 + d.length * 160 })
        : undefined
    this.#counter = services.metrics.counter(CACHE_METRIC, 'detect_business text analyses by cache result', [
      'result',
    ])
    this.#blockRank =
      settings.block_level === 'never'
        ? Number.POSITIVE_INFINITY
        : levelRank(settings.block_level as ClassificationLevel)
    this.#action = settings.action
  }

  onRequest(ctx: RequestContext): Verdict {
    const parts: TextPart[] = []
    for (const message of ctx.exchange.messages) for (const part of message.parts) parts.push(part)
    return this.#govern(ctx, parts)
  }

  onBufferedResponse(ctx: ResponseContext): Verdict {
    return this.#govern(ctx, ctx.answer.message.parts)
  }

  /** Findings of one text, from the cache when the same text was analysed before. */
  analyze(text: string): readonly Detection[] {
    const tally: Tally = { hit: 0, miss: 0 }
    const detections = this.#lookup(text, tally)
    this.#count(tally)
    return detections
  }

  /** {@link analyze} without touching the metric: the caller counts once per call, not once per text. */
  #lookup(text: string, tally: Tally): readonly Detection[] {
    if (!text) return NO_DETECTIONS
    const cached = this.#cache?.get(text)
    if (cached) {
      tally.hit++
      return cached
    }
    const detections = Object.freeze(this.#detector.analyze(text).map(freezeDetection))
    this.#cache?.set(text, detections)
    tally.miss++
    return detections
  }

  #count(tally: Tally): void {
    if (tally.hit) this.#counter.inc({ result: 'hit' }, tally.hit)
    if (tally.miss) this.#counter.inc({ result: 'miss' }, tally.miss)
  }

  #govern(ctx: HookContext, parts: readonly TextPart[]): Verdict {
    const action = this.#actionOf(ctx)
    let blocking: Detection | undefined
    const toMask: { part: TextPart; text: string; detections: readonly Detection[] }[] = []
    const tally: Tally = { hit: 0, miss: 0 }
    for (const part of parts) {
      const text = part.text
      const detections = this.#lookup(text, tally)
      if (!detections.length) continue
      for (const detection of detections) {
        ctx.report({
          type: detection.type,
          score: detection.score,
          level: detection.level,
          span: { partId: part.id, start: detection.start, end: detection.end },
          source: part.source,
          messageIndex: part.messageIndex,
          detail: detection.detail,
        })
        if (levelRank(detection.level) >= this.#blockRank) blocking = worse(blocking, detection)
      }
      if (action === 'mask') toMask.push({ part, text, detections })
    }
    this.#count(tally)
    if (blocking) {
      return Verdicts.block(
        BLOCK_CODE,
        `business data classified ${blocking.level} detected (${blocking.type})`,
        403,
      )
    }
    if (toMask.length) {
      const book = this.#placeholders(ctx)
      for (const { part, text, detections } of toMask) part.text = maskText(text, detections, book)
    }
    return Verdicts.continue()
  }

  #actionOf(ctx: HookContext): BelowBlockAction {
    const flag = ctx.call.flags.get(ACTION_FLAG)
    return flag === 'mask' || flag === 'report' ? flag : this.#action
  }

  /** The call's placeholder book, shared by the request and the answer. */
  #placeholders(ctx: HookContext): PlaceholderBook {
    let book = ctx.state.get(STATE_PLACEHOLDERS)
    if (!(book instanceof PlaceholderBook)) {
      book = new PlaceholderBook()
      ctx.state.set(STATE_PLACEHOLDERS, book)
    }
    return book as PlaceholderBook
  }
}
