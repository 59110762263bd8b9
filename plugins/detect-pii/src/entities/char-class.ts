/**
 * Unicode classes of single characters, memoised per UTF-16 code unit, so the
 * tokenizer asks a regular expression at most once per distinct non-ASCII
 * character instead of once per token.
 */

/** Bit set: letter (\p{L}). */
export const LETTER = 1
/** Bit set: combining mark (\p{M}). */
export const MARK = 2
/** Bit set: upper-case letter (\p{Lu}). */
export const UPPER = 4
/** Bit set: lower-case letter (\p{Ll}). */
export const LOWER = 8
const KNOWN = 16

const IS_LETTER = /^\p{L}$/u
const IS_MARK = /^\p{M}$/u
const IS_UPPER = /^\p{Lu}$/u
const IS_LOWER = /^\p{Ll}$/u

// One byte per code unit; 0 means "not asked yet". Lone surrogates classify as nothing, as in a `u` regex.
const units = new Uint8Array(65_536)
const astral = new Map<number, number>()

function classify(char: string): number {
  return (
    KNOWN |
    (IS_LETTER.test(char) ? LETTER : 0) |
    (IS_MARK.test(char) ? MARK : 0) |
    (IS_UPPER.test(char) ? UPPER : 0) |
    (IS_LOWER.test(char) ? LOWER : 0)
  )
}

/** Classes of one UTF-16 code unit read on its own (a lone surrogate has none). */
export function unitClass(code: number): number {
  if (code < 128) {
    if (code >= 65 && code <= 90) return KNOWN | LETTER | UPPER
    if (code >= 97 && code <= 122) return KNOWN | LETTER | LOWER
    return KNOWN
  }
  let bits = units[code]
  if (bits === 0) {
    bits = classify(String.fromCharCode(code))
    units[code] = bits
  }
  return bits
}

/** Classes of a code point above U+FFFF. */
export function astralClass(codePoint: number): number {
  let bits = astral.get(codePoint)
  if (bits === undefined) {
    bits = classify(String.fromCodePoint(codePoint))
    // Astral letters are rare; bound the memo so adversarial text cannot grow it without limit.
    if (astral.size < 4096) astral.set(codePoint, bits)
  }
  return bits
}
