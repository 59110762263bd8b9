/**
 * Admin-supplied identifier regexes run on every text of every call, and the
 * text is attacker-controlled, so a pattern must not backtrack without bound.
 * A pattern is accepted only when it:
 * - is at most {@link MAX_PATTERN_LENGTH} characters and compiles with the `u` flag;
 * - has no backreferences (`\1`, `\k<name>`);
 * - repeats no group that itself varies (`(a+)+`, `(a|ab)*`, `(\d{1,3}\.){3}`): the classic exponential shapes;
 * - cannot match the empty string.
 * Unbounded quantifiers (`*`, `+`, `{n,}`) are compiled as bounded ones capped
 * at {@link MAX_REPEAT} repetitions, and the product of the choices all variable
 * quantifiers leave at one position may not exceed {@link MAX_BACKTRACK_PRODUCT},
 * so the work per text position stays bounded.
 */

/** Longest accepted pattern source. */
export const MAX_PATTERN_LENGTH = 200
/** Cap on repetitions of `*`, `+` and `{n,}`. */
export const MAX_REPEAT = 64
/** Cap on the product of (max − min + 1) over the variable quantifiers of a pattern. */
export const MAX_BACKTRACK_PRODUCT = 4096

/** Why a pattern was refused. */
export type UnsafeReason =
  | 'too_long'
  | 'syntax'
  | 'backreference'
  | 'nested_quantifier'
  | 'too_much_backtracking'
  | 'matches_empty'

/** A pattern refused by {@link compileSafePattern}. */
export class UnsafePatternError extends Error {
  readonly reason: UnsafeReason
  constructor(reason: UnsafeReason, message: string) {
    super(message)
    this.name = 'UnsafePatternError'
    this.reason = reason
  }
}

interface GroupFrame {
  /** The group contains a quantifier whose count varies, or an alternation. */
  varies: boolean
}

interface Quantifier {
  min: number
  max: number
  /** Characters the quantifier took in the source. */
  length: number
}

/** Read a quantifier at `i`, or undefined when none starts there. */
function readQuantifier(source: string, i: number): Quantifier | undefined {
  const char = source[i]
  if (char === '*') return { min: 0, max: Number.POSITIVE_INFINITY, length: 1 }
  if (char === '+') return { min: 1, max: Number.POSITIVE_INFINITY, length: 1 }
  if (char === '?') return { min: 0, max: 1, length: 1 }
  if (char !== '{') return undefined
  // The `u` flag makes a stray `{` a syntax error, so this brace is a quantifier.
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))
  if (!match) return undefined
  const min = Number(match[1])
  const max = match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3])
  return { min, max, length: match[0].length }
}

/** Index just after the escape that starts at `i` (a backslash). */
function skipEscape(source: string, i: number): number {
  const next = source[i + 1]
  if ((next === 'p' || next === 'P' || next === 'u') && source[i + 2] === '{') {
    const close = source.indexOf('}', i + 3)
    return close < 0 ? source.length : close + 1
  }
  return i + 2
}

/**
 * Check `source` and return it with unbounded quantifiers capped; throws
 * {@link UnsafePatternError}. Assumes `source` already compiled with the `u` flag.
 */
export function boundPattern(source: string): string {
  const stack: GroupFrame[] = [{ varies: false }]
  let out = ''
  let product = 1
  /** Whether the atom just read is a group that varies; quantifying it repeatedly is refused. */
  let lastAtomVaries = false
  for (let i = 0; i < source.length; ) {
    const char = source[i]
    if (char === '\\') {
      const next = source[i + 1]
      if ((next >= '1' && next <= '9') || (next === 'k' && source[i + 2] === '<')) {
        throw new UnsafePatternError('backreference', 'backreferences are not allowed')
      }
      const end = skipEscape(source, i)
      out += source.slice(i, end)
      i = end
      lastAtomVaries = false
    } else if (char === '[') {
      let j = i + 1
      while (j < source.length && source[j] !== ']') j = source[j] === '\\' ? skipEscape(source, j) : j + 1
      out += source.slice(i, j + 1)
      i = j + 1
      lastAtomVaries = false
    } else if (char === '(') {
      stack.push({ varies: false })
      const prefix = /^\((\?(<?[=!]|:|<[A-Za-z_$][\w$]*>))?/.exec(source.slice(i))?.[0] ?? '('
      out += prefix
      i += prefix.length
      lastAtomVaries = false
    } else if (char === ')') {
      const frame = stack.pop() ?? { varies: false }
      const parent = stack[stack.length - 1]
      if (parent && frame.varies) parent.varies = true
      out += ')'
      i++
      lastAtomVaries = frame.varies
    } else if (char === '|') {
      stack[stack.length - 1].varies = true
      out += '|'
      i++
      lastAtomVaries = false
    } else {
      const quantifier = readQuantifier(source, i)
      if (!quantifier) {
        out += char
        i++
        lastAtomVaries = false
        continue
      }
      if (quantifier.max > 1 && lastAtomVaries) {
        throw new UnsafePatternError(
          'nested_quantifier',
          'a repeated group may not contain a variable quantifier or an alternation',
        )
      }
      const max = Math.min(quantifier.max, Math.max(quantifier.min, MAX_REPEAT))
      if (max !== quantifier.min) stack[stack.length - 1].varies = true
      product *= max - quantifier.min + 1
      if (product > MAX_BACKTRACK_PRODUCT) {
        throw new UnsafePatternError(
          'too_much_backtracking',
          `the variable quantifiers allow more than ${MAX_BACKTRACK_PRODUCT} combinations at one position; bound them, e.g. {1,20}`,
        )
      }
      let written =
        quantifier.max === max ? source.slice(i, i + quantifier.length) : `{${quantifier.min},${max}}`
      i += quantifier.length
      if (source[i] === '?') {
        written += '?'
        i++
      }
      out += written
      lastAtomVaries = false
    }
  }
  return out
}

/** Validate and compile an identifier pattern; throws {@link UnsafePatternError}. */
export function compileSafePattern(source: string, ignoreCase: boolean): RegExp {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new UnsafePatternError('too_long', `patterns are limited to ${MAX_PATTERN_LENGTH} characters`)
  }
  const flags = ignoreCase ? 'giu' : 'gu'
  try {
    new RegExp(source, flags)
  } catch (error) {
    throw new UnsafePatternError('syntax', (error as Error).message)
  }
  const regex = new RegExp(boundPattern(source), flags)
  if (regex.test('')) throw new UnsafePatternError('matches_empty', 'the pattern matches the empty string')
  regex.lastIndex = 0
  return regex
}
