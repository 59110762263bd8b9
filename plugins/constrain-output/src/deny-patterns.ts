import { GovError } from '@gov/core'
import safeRegex from 'safe-regex2'
import { CONSTRAIN_OUTPUT_ERRORS } from './errors.js'

/** Windows overlap by this much, so a match up to this long across a window edge is still found. */
export const WINDOW_OVERLAP = 1_024

const SLASHED = /^\/(.*)\/([a-z]*)$/s

/** Compile one `deny_patterns` entry: `source` or `/source/flags`. `g` and `y` are dropped (they make `test` stateful). */
export function compilePattern(entry: string, index: number): RegExp {
  const slashed = SLASHED.exec(entry)
  const source = slashed ? slashed[1] : entry
  const flags = (slashed ? slashed[2] : '').replace(/[gy]/g, '')
  let re: RegExp
  try {
    re = new RegExp(source, flags)
  } catch (err) {
    throw new GovError(
      CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID,
      `constrain_output: deny_patterns[${index}] does not compile: ${(err as Error).message}`,
      400,
      { index },
    )
  }
  if (!safeRegex(re)) {
    throw new GovError(
      CONSTRAIN_OUTPUT_ERRORS.PATTERN_UNSAFE,
      `constrain_output: deny_patterns[${index}] has nested quantifiers that can backtrack catastrophically; rewrite it without a repeated group of repeats`,
      400,
      { index },
    )
  }
  return re
}

/**
 * The deny patterns, compiled once per pipeline version. Nested quantifiers
 * are refused at load (safe-regex2), and each pattern runs over windows of at
 * most `windowChars`, so even a pattern that backtracks polynomially costs a
 * bounded amount per window and linear time in the answer's length.
 */
export class DenyPatterns {
  readonly #patterns: RegExp[]
  readonly #window: number

  constructor(entries: readonly string[], windowChars: number) {
    this.#patterns = entries.map(compilePattern)
    this.#window = Math.max(windowChars, WINDOW_OVERLAP * 2)
  }

  /** Index of the first pattern that matches `text`, or -1. */
  firstMatch(text: string): number {
    for (let i = 0; i < this.#patterns.length; i++) {
      const re = this.#patterns[i]
      if (text.length <= this.#window) {
        if (re.test(text)) return i
        continue
      }
      const step = this.#window - WINDOW_OVERLAP
      for (let start = 0; start < text.length; start += step) {
        if (re.test(text.slice(start, start + this.#window))) return i
        if (start + this.#window >= text.length) break
      }
    }
    return -1
  }
}
