/**
 * Analyses kept per text, so a long conversation costs about its newest
 * message per turn. The key is the channel plus the exact text (see
 * {@link TextCache}: a sampled pre-key and a compare, no hash of every earlier
 * message; a SHA-256 for texts over 16 K units). The analysis, not the
 * verdict, is cached: thresholds may differ per call.
 */
import { createHash } from 'node:crypto'
import { TextCache } from '@gov/core'
import type { Analysis } from './detector.js'
import type { Channel } from './match-rules.js'

const HASH_ABOVE = 256

/** An LRU of analyses; a size of 0 keeps nothing. */
export class AnalysisCache {
  readonly #cache: TextCache<Analysis> | undefined
  /** Analyses under way on another thread, so concurrent calls with one text share the work. */
  readonly #pending = new Map<string, Promise<Analysis>>()

  constructor(size: number) {
    this.#cache = size > 0 ? new TextCache<Analysis>({ max: size, sizeOfValue: () => 256 }) : undefined
  }

  /** The cached analysis of `text` on `channel`, or the result of `analyze`, stored. */
  get(channel: Channel, text: string, analyze: () => Analysis): Analysis {
    if (!this.#cache) return analyze()
    const tag = tagOf(channel)
    let analysis = this.#cache.get(text, tag)
    if (!analysis) {
      analysis = analyze()
      this.#cache.set(text, analysis, tag)
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
    const tag = tagOf(channel)
    const cached = cache.get(text, tag)
    if (cached) return Promise.resolve(cached)
    const key = keyOf(channel, text)
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = analyze().then(
        (analysis) => {
          this.#pending.delete(key)
          cache.set(text, analysis, tag)
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

function tagOf(channel: Channel): number {
  return channel === 'tool' ? 1 : 0
}

/** Key of an analysis under way (long texts only, so few). */
function keyOf(channel: Channel, text: string): string {
  return text.length > HASH_ABOVE
    ? `${channel}#${createHash('sha256').update(text).digest('base64')}`
    : `${channel}:${text}`
}
