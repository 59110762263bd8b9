import { GovError } from '@gov/core'
import { RE2JS } from 're2js'
import { CONSTRAIN_OUTPUT_ERRORS } from './errors.js'

const SLASHED = /^\/(.*)\/([a-z]*)$/s

/** JavaScript flags and their RE2 equivalents; `g`, `y` and `u` change nothing for a yes/no match. */
const FLAGS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  s: RE2JS.DOTALL,
  m: RE2JS.MULTILINE,
  g: 0,
  y: 0,
  u: 0,
}

/**
 * Compile one `deny_patterns` entry, `source` or `/source/flags`, with RE2
 * (re2js): matching takes time linear in the answer's length whatever the
 * pattern, so no pattern an operator writes can stall the gateway on a long
 * answer. RE2 has no lookaround and no backreferences; such a pattern is
 * refused at load.
 */
export function compilePattern(entry: string, index: number): RE2JS {
  const slashed = SLASHED.exec(entry)
  const source = slashed ? slashed[1] : entry
  let flags = 0
  for (const flag of slashed ? slashed[2] : '') {
    const bit = FLAGS[flag]
    if (bit === undefined) {
      throw new GovError(
        CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID,
        `constrain_output: deny_patterns[${index}] has the unsupported flag '${flag}' (use i, s, m)`,
        400,
        { index },
      )
    }
    flags |= bit
  }
  try {
    return RE2JS.compile(source, flags)
  } catch (err) {
    throw new GovError(
      CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID,
      `constrain_output: deny_patterns[${index}] is not a valid RE2 pattern: ${(err as Error).message}`,
      400,
      { index },
    )
  }
}

/** The deny patterns, compiled once per pipeline version. */
export class DenyPatterns {
  readonly #patterns: RE2JS[]

  constructor(entries: readonly string[]) {
    this.#patterns = entries.map(compilePattern)
  }

  /** Index of the first pattern found anywhere in `text`, or -1. */
  firstMatch(text: string): number {
    for (let i = 0; i < this.#patterns.length; i++) if (this.#patterns[i].test(text)) return i
    return -1
  }
}
