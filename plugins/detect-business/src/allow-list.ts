/**
 * The allow-list: phrases and patterns an admin has declared harmless for this
 * pipeline (a footer "Confidential – public release", a published price, an
 * order number format that looks like a customer id). A finding is dropped
 * when it lies wholly inside an allowed match in the same text, so an allowed
 * phrase never hides anything next to it. Terms match like declared terms
 * (case, accents and separators folded, whole words); patterns are held to
 * the same safety rules as identifier patterns (see safe-pattern.ts).
 */
import { ErrorCodes, GovError } from '@gov/core'
import type { Detection } from './detection.js'
import { foldText } from './fold-text.js'
import { PhraseMatcher } from './phrase-matcher.js'
import { compileSafePattern, UnsafePatternError } from './safe-pattern.js'

function settingsError(message: string, details: Record<string, unknown>): GovError {
  return new GovError(ErrorCodes.STEP_SETTINGS_INVALID, message, 400, { step: 'detect_business', ...details })
}

/** Compiled allow-list of one step instance. */
export class AllowList {
  readonly #terms: PhraseMatcher<number>
  readonly #patterns: readonly RegExp[]

  /** Throws `GOV_ERR_STEP_SETTINGS_INVALID` (400) naming a term with nothing to match or a refused pattern. */
  constructor(terms: readonly string[], patterns: readonly string[]) {
    terms.forEach((term, index) => {
      if (!foldText(term).text.trim()) {
        throw settingsError(`detect_business: allow_list[${index}] has no letters or digits to match`, {
          path: `/allow_list/${index}`,
        })
      }
    })
    this.#terms = new PhraseMatcher(
      terms.map((_, index) => index),
      (index) => [terms[index]],
    )
    this.#patterns = patterns.map((source, index) => {
      try {
        return compileSafePattern(source, false)
      } catch (error) {
        if (!(error instanceof UnsafePatternError)) throw error
        throw settingsError(`detect_business: allow_patterns[${index}] is refused: ${error.message}`, {
          path: `/allow_patterns/${index}`,
          reason: error.reason,
        })
      }
    })
  }

  /** True when the list allows nothing. */
  get empty(): boolean {
    return this.#terms.empty && this.#patterns.length === 0
  }

  /** `detections` without those inside an allowed match of `text`. */
  filter(text: string, detections: Detection[]): Detection[] {
    if (this.empty || detections.length === 0) return detections
    const allowed: Array<[number, number]> = []
    for (const hit of this.#terms.find(text)) allowed.push([hit.start, hit.end])
    for (const pattern of this.#patterns) {
      pattern.lastIndex = 0
      for (const match of text.matchAll(pattern)) {
        const start = match.index ?? 0
        allowed.push([start, start + match[0].length])
      }
    }
    if (allowed.length === 0) return detections
    const merged = mergeRanges(allowed)
    return detections.filter((d) => !insideAny(merged, d.start, d.end))
  }
}

/** Sorted, disjoint union of ranges. */
function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  ranges.sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const [start, end] of ranges) {
    const last = merged[merged.length - 1]
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}

/** Whether [start, end) lies inside one of the merged ranges (binary search). */
function insideAny(merged: ReadonlyArray<[number, number]>, start: number, end: number): boolean {
  let lo = 0
  let hi = merged.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (merged[mid][1] <= start) lo = mid + 1
    else if (merged[mid][0] > start) hi = mid - 1
    else return merged[mid][1] >= end
  }
  return false
}
