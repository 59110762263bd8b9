import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Detection, SecretScanner } from './scanner.js'

/** Texts longer than this are keyed by their SHA-256 so the cache does not hold long prompts twice. */
const HASH_KEY_FROM = 256

/**
 * Per-instance cache of scan results keyed by text. Every turn re-sends the
 * whole conversation, so without it a long chat would be rescanned from the
 * start on each call; with it a turn costs about its newest message. The
 * analysis (detections with offsets) is cached, never the redacted text.
 */
export class AnalysisCache {
  readonly #scanner: SecretScanner
  readonly #cache: LRUCache<string, readonly Detection[]>
  #scans = 0

  constructor(scanner: SecretScanner, maxEntries: number) {
    this.#scanner = scanner
    this.#cache = new LRUCache({ max: maxEntries })
  }

  /** Detections for `text`, scanning it only the first time it is seen. */
  analyze(text: string): readonly Detection[] {
    const key =
      text.length > HASH_KEY_FROM ? `#${createHash('sha256').update(text).digest('base64')}` : `=${text}`
    const cached = this.#cache.get(key)
    if (cached) return cached
    this.#scans++
    const detections = Object.freeze(this.#scanner.scan(text))
    this.#cache.set(key, detections)
    return detections
  }

  /** How many texts were actually scanned (cache misses); for tests and metrics. */
  get scans(): number {
    return this.#scans
  }

  clear(): void {
    this.#cache.clear()
  }
}
