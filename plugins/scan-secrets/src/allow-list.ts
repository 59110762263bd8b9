import { GovError } from '@gov/core'
import { SCAN_SECRETS_ERRORS } from './errors.js'

/** Longest accepted allow pattern. */
export const MAX_ALLOW_PATTERN_LENGTH = 200
/** Patterns see at most this many characters of a value, so their work per finding is bounded. */
export const MAX_ALLOW_TESTED_CHARS = 1024

/**
 * A group that is repeated and itself contains a quantifier (`(a+)+`, `(\w*x)*`,
 * `(a|b+){2,}`): the shape that backtracks exponentially.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/

function invalid(message: string, details: Record<string, unknown>): GovError {
  return new GovError(SCAN_SECRETS_ERRORS.ALLOW_LIST_INVALID, `scan_secrets: ${message}`, 400, details)
}

/** Compiles one admin pattern, refusing what would hang or silence everything. */
function compilePattern(source: string, setting: string, index: number, flags = 'u'): RegExp {
  const at = { setting, index }
  if (source.length > MAX_ALLOW_PATTERN_LENGTH) {
    throw invalid(`${setting}[${index}] is longer than ${MAX_ALLOW_PATTERN_LENGTH} characters`, at)
  }
  let pattern: RegExp
  try {
    pattern = new RegExp(source, flags.replace(/[gy]/g, ''))
  } catch (error) {
    throw invalid(`${setting}[${index}] is not a valid regular expression`, {
      ...at,
      cause: (error as Error).message,
    })
  }
  if (NESTED_QUANTIFIER.test(source)) {
    throw invalid(`${setting}[${index}] repeats a group that contains a quantifier (e.g. (a+)+)`, at)
  }
  if (pattern.test('')) throw invalid(`${setting}[${index}] matches the empty string, i.e. every secret`, at)
  return pattern
}

/**
 * Values the operator declared safe (a vendor's public demo key, a known test
 * token, an internal fixture), checked against the value of each candidate
 * secret before it is reported: `terms` are exact values; `patterns` are
 * regular expressions tested against the value (anchor them with `^…$` to
 * match whole values). For compatibility, a term written `/regex/flags` is a
 * pattern. Everything is validated when the step is built: a pattern that
 * does not compile, is over 200 characters, nests quantifiers or matches the
 * empty string is refused with `GOV_ERR_SCAN_SECRETS_ALLOW_LIST_INVALID` (400).
 */
export class AllowList {
  readonly #exact: Set<string>
  readonly #patterns: RegExp[]

  constructor(terms: readonly string[], patterns: readonly string[] = []) {
    this.#exact = new Set()
    this.#patterns = []
    terms.forEach((entry, index) => {
      const regex = /^\/(.+)\/([a-z]*)$/s.exec(entry)
      if (regex) this.#patterns.push(compilePattern(regex[1], 'allow_list', index, regex[2]))
      else this.#exact.add(entry.trim())
    })
    patterns.forEach((source, index) => {
      this.#patterns.push(compilePattern(source, 'allow_patterns', index))
    })
  }

  /** True when the value is allowed, i.e. must not be reported. */
  allows(value: string): boolean {
    if (this.#exact.has(value)) return true
    if (this.#patterns.length === 0) return false
    const tested = value.length > MAX_ALLOW_TESTED_CHARS ? value.slice(0, MAX_ALLOW_TESTED_CHARS) : value
    for (const pattern of this.#patterns) if (pattern.test(tested)) return true
    return false
  }

  get size(): number {
    return this.#exact.size + this.#patterns.length
  }
}
