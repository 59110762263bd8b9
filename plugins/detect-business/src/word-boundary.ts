/**
 * Whole-word checks that work across scripts. A letter, digit or combining
 * mark next to a match means the match is part of a longer word — except in
 * scripts written without spaces between words (Chinese, Japanese, Thai…) and
 * Korean (particles attach to nouns: 삼성전자는), where a term is found inside
 * running text. Underscores and hyphens are separators, so `FALCON_API`
 * contains the word "Falcon".
 */

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u
const UNSPACED_SCRIPT =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc]$/u

/** True when `char` (one code point) is a letter, digit or mark. */
export function isWordChar(char: string): boolean {
  return WORD_CHAR.test(char)
}

/** True when `char` belongs to a word that must be delimited to count as a whole word. */
export function needsBoundary(char: string): boolean {
  return WORD_CHAR.test(char) && !UNSPACED_SCRIPT.test(char)
}

/** The code point that ends just before `offset`, or '' at the start. */
export function charBefore(text: string, offset: number): string {
  if (offset <= 0) return ''
  const low = text.charCodeAt(offset - 1)
  if (low >= 0xdc00 && low <= 0xdfff && offset >= 2) {
    const high = text.charCodeAt(offset - 2)
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(offset - 2, offset)
  }
  return text[offset - 1]
}

/** The code point that starts at `offset`, or '' at the end. */
export function charAt(text: string, offset: number): string {
  if (offset >= text.length) return ''
  const point = text.codePointAt(offset) ?? 0
  return String.fromCodePoint(point)
}

/**
 * True when `[start, end)` of `text` is not glued to a longer word: checked
 * only on the sides where the match itself begins or ends with a word
 * character of a spaced script.
 */
export function isWholeWord(text: string, start: number, end: number): boolean {
  if (end <= start) return false
  if (needsBoundary(charAt(text, start)) && isWordChar(charBefore(text, start))) return false
  if (needsBoundary(charBefore(text, end)) && isWordChar(charAt(text, end))) return false
  return true
}
