import type { Detection } from './detection.js'
import { foldTerm } from './fold-text.js'
import { pickLeftmostLongest } from './phrase-matcher.js'

/**
 * Placeholders of one call. The same value gets the same placeholder in every
 * part and in both phases (`<CUSTOMER_1>` stays Acme in the request and the
 * answer), so the model can still tell values apart without seeing them.
 */
export class PlaceholderBook {
  readonly #byKey = new Map<string, string>()
  readonly #counts = new Map<string, number>()

  /** The placeholder of the value identified by `key`, numbered per stem on first use. */
  placeholderFor(stem: string, key: string): string {
    let placeholder = this.#byKey.get(key)
    if (placeholder === undefined) {
      const n = (this.#counts.get(stem) ?? 0) + 1
      this.#counts.set(stem, n)
      placeholder = `<${stem}_${n}>`
      this.#byKey.set(key, placeholder)
    }
    return placeholder
  }
}

/** Replace every maskable detection of `text` with its placeholder; overlaps keep the leftmost, longest span. */
export function maskText(text: string, detections: readonly Detection[], book: PlaceholderBook): string {
  const spans = pickLeftmostLongest(
    detections.filter((d) => d.maskAs !== undefined).sort((a, b) => a.start - b.start || b.end - a.end),
  )
  if (!spans.length) return text
  let out = ''
  let cursor = 0
  for (const span of spans) {
    const stem = span.maskAs ?? 'BUSINESS'
    const key = span.maskKey ?? `${stem}:${foldTerm(text.slice(span.start, span.end))}`
    out += text.slice(cursor, span.start) + book.placeholderFor(stem, key)
    cursor = span.end
  }
  return out + text.slice(cursor)
}
