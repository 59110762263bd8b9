import { TextCache } from '@gov/core'
import type { Detection, SecretScanner } from './scanner.js'

/**
 * Per-instance cache of scan results keyed by text. Every turn re-sends the
 * whole conversation, so without it a long chat would be rescanned from the
 * start on each call; with it a turn costs about its newest message. The
 * analysis (detections with offsets) is cached, never the redacted text.
 */
export class AnalysisCache {
  readonly #scanner: SecretScanner
  readonly #cache: TextCache<readonly Detection[]>
  #scans = 0

  constructor(scanner: SecretScanner, maxEntries: number) {
    this.#scanner = scanner
    this.#cache = new TextCache({ max: maxEntries, sizeOfValue: (d) => 64 + d.length * 96 })
  }

  /** Detections for `text`, scanning it only the first time it is seen. */
  analyze(text: string): readonly Detection[] {
    const cached = this.#cache.get(text)
    if (cached) return cached
    this.#scans++
    const detections = Object.freeze(this.#scanner.scan(text))
    this.#cache.set(text, detections)
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
