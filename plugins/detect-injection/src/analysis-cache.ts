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
  /** Analyses under way on another thread, so concurrent calls with one text share the work. */
  readonly #pending = new Map<string, Promise<Analysis>>()

  constructor(size: number) {
    this.#cache = size > 0 ? new LRUCache<string, Analysis>({ max: size }) : undefined
  }

  /** The cached analysis of `text` on `channel`, or the result of `analyze`, stored. */
  get(channel: Channel, text: string, analyze: () => Analysis): Analysis {
    if (!this.#cache) return analyze()
    const key = keyOf(channel, text)
    let analysis = this.#cache.get(key)
    if (!analysis) {
      analysis = analyze()
      this.#cache.set(key, analysis)
    }
    return analysis
  }

  /**
   * Like {@link get}, for an analysis that completes later: the result is
   * stored when it arrives, and a call for a text already under way waits for
   * that analysis instead of starting another. A failed analysis is not kept.
   */
  getAsync(channel: Channel, text: string, analyze: () => Promise<Analysis>): Promise<Analysis> {
    const cache = this.#cache
    if (!cache) return analyze()
    const key = keyOf(channel, text)
    const cached = cache.get(key)
    if (cached) return Promise.resolve(cached)
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = analyze().then(
        (analysis) => {
          this.#pending.delete(key)
          cache.set(key, analysis)
          return analysis
        },
        (error: unknown) => {
          this.#pending.delete(key)
          throw error
        },
      )
      this.#pending.set(key, pending)
    }
    return pending
  }

  /** Entries held. */
  get size(): number {
    return this.#cache?.size ?? 0
  }
}

function keyOf(channel: Channel, text: string): string {
  return text.length > HASH_ABOVE
    ? `${channel}#${createHash('sha256').update(text).digest('base64')}`
    : `${channel}:${text}`
}
