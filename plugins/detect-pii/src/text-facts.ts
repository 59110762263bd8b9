import { CASE_SAMPLE_LETTERS, type CaseMode, caseModeFromCounts } from './case-mode.js'

/** What one pass over a text tells the analyser: which detectors cannot match, and its casing. */
export interface TextFacts {
  /** ASCII digits in the text. */
  readonly digits: number
  /** Longest run of consecutive ASCII digits. */
  readonly digitRun: number
  readonly hasAt: boolean
  readonly hasDot: boolean
  readonly colons: number
  readonly caseMode: CaseMode
}

/**
 * Reads the facts of a text (as its UTF-16 code units) in one pass. Every
 * structured detector needs digits, an "@" or colons in some number, so on
 * ordinary prose most of them are skipped without running their patterns.
 */
export function readTextFacts(units: Uint16Array): TextFacts {
  let digits = 0
  let digitRun = 0
  let run = 0
  let hasAt = false
  let hasDot = false
  let colons = 0
  let upper = 0
  let lower = 0
  for (let i = 0; i < units.length; i++) {
    const c = units[i]
    if (c >= 48 && c <= 57) {
      digits++
      if (++run > digitRun) digitRun = run
      continue
    }
    run = 0
    if (c >= 97 && c <= 122) {
      if (upper + lower < CASE_SAMPLE_LETTERS) lower++
    } else if (c >= 65 && c <= 90) {
      if (upper + lower < CASE_SAMPLE_LETTERS) upper++
    } else if (c === 46) hasDot = true
    else if (c === 64) hasAt = true
    else if (c === 58) colons++
  }
  return { digits, digitRun, hasAt, hasDot, colons, caseMode: caseModeFromCounts(upper, lower) }
}
