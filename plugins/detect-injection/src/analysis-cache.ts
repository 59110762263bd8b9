/**
 * Analyses kept per text, so a long conversation costs about its newest
 * message per turn. The key is the channel plus the text (a hash of it when
 * long, so the cache does not hold large prompts twice). The analysis, not
 * the verdict, is cached: thresholds may differ per call.
 */
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Analysis } from './detector.js'
import type { Channel } from './match-rules.js'

const HASH_ABOVE = 256

/** An LRU of analyses; a size of 0 keeps nothing. */
export class AnalysisCache {
  readonly #cache: LRUCache<string, Analysis> | undefined

  constructor(size: number) {
    this.#cache = size > 0 ? new LRUCache<string, Analysis>({ max: size }) : undefined
  }

  /** The cached analysis of `text` on `channel`, or the result of `analyze`, stored. */
  get(channel: Channel, text: string, analyze: () => Analysis): Analysis {
    if (!this.#cache) return analyze()
    const key =
      text.length > HASH_ABOVE
        ? `${channel}#${createHash('sha256').update(text).digest('base64')}`
        : `${channel}:${text}`
    let analysis = this.#cache.get(key)
    if (!analysis) {
      analysis = analyze()
      this.#cache.set(key, analysis)
    }
    return analysis
  }

  /** Entries held. */
  get size(): number {
    return this.#cache?.size ?? 0
  }
}
