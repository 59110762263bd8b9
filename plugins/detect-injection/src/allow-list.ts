/**
 * The allow-list: terms and patterns an admin has declared harmless for this
 * pipeline ("ignore previous" in a product's own help text, a tool's fixed
 * banner). Matches are blanked out before the text is analysed, one space per
 * character so offsets and spans stay valid. The rest of the text is still
 * scored: an attack next to an allowed phrase is still caught, and an
 * attacker gains nothing by adding the phrase.
 */
import { ErrorCodes, GovError } from '@gov/core'

/** Longest accepted allow pattern: patterns run on attacker-controlled text. */
export const MAX_ALLOW_PATTERN_LENGTH = 200

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function settingsError(message: string, details: Record<string, unknown>): GovError {
  return new GovError(ErrorCodes.STEP_SETTINGS_INVALID, message, 400, {
    step: 'detect_injection',
    ...details,
  })
}

/** Compiled allow-list of one step instance. */
export class AllowList {
  readonly #patterns: readonly RegExp[]

  /** Throws `GOV_ERR_STEP_SETTINGS_INVALID` (400) naming a pattern that does not compile or matches nothing. */
  constructor(terms: readonly string[], patterns: readonly string[]) {
    const compiled: RegExp[] = []
    const words = terms.map((t) => t.trim()).filter((t) => t.length > 0)
    if (words.length > 0) {
      // Longest first, so a term that contains another is blanked whole.
      words.sort((a, b) => b.length - a.length)
      compiled.push(new RegExp(words.map(escapeRegExp).join('|'), 'giu'))
    }
    patterns.forEach((source, index) => {
      if (source.length > MAX_ALLOW_PATTERN_LENGTH)
        throw settingsError(
          `detect_injection: allow_patterns[${index}] is longer than ${MAX_ALLOW_PATTERN_LENGTH}`,
          {
            setting: 'allow_patterns',
            index,
          },
        )
      let pattern: RegExp
      try {
        pattern = new RegExp(source, 'giu')
      } catch (error) {
        throw settingsError(`detect_injection: allow_patterns[${index}] is not a valid regular expression`, {
          setting: 'allow_patterns',
          index,
          cause: (error as Error).message,
        })
      }
      if (pattern.test('')) {
        throw settingsError(`detect_injection: allow_patterns[${index}] matches the empty string`, {
          setting: 'allow_patterns',
          index,
        })
      }
      compiled.push(pattern)
    })
    this.#patterns = compiled
  }

  /** True when the list has nothing to blank. */
  get empty(): boolean {
    return this.#patterns.length === 0
  }

  /** `text` with every allowed match replaced by as many spaces (the text itself when nothing matched). */
  apply(text: string): string {
    let out = text
    for (const pattern of this.#patterns) {
      pattern.lastIndex = 0
      if (!pattern.test(out)) continue
      pattern.lastIndex = 0
      out = out.replace(pattern, (match) => ' '.repeat(match.length))
    }
    return out
  }
}
