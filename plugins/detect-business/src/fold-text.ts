/**
 * Folding for matching: lower case, compatibility decomposition without
 * accents (NFKD minus marks: "Société" ≡ "societe", full-width "ＡＣＭＥ" ≡
 * "acme"), curly apostrophes as straight ones, and every run of whitespace,
 * hyphens and underscores as one space ("project-falcon" ≡ "Project  Falcon").
 * Each folded code unit remembers the original character it came from, so a
 * match in folded text maps back to exact offsets in the original.
 */

/**
 * Text folded for matching, with the way back to original offsets. The offset
 * arrays are views of buffers reused by the next {@link foldText} call: use
 * them right away, never keep them.
 */
export interface FoldedText {
  /** The folded text. */
  readonly text: string
  /** For each code unit of `text`, the offset in the original where its character starts. */
  readonly starts: Int32Array
  /** For each code unit of `text`, the offset in the original just after its character (and any marks or separators folded into it). */
  readonly ends: Int32Array
}

const SPACE = 0x20
const MARKS = /\p{M}/gu
const SEPARATOR = /^[\s\-_\u2010-\u2015\u2212\u00ad]$/u
const nonAsciiFolds = new Map<string, string>()

/** Fold one non-ASCII character (one code point); `' '` for separators, `''` for lone marks. */
export function foldChar(char: string): string {
  let folded = nonAsciiFolds.get(char)
  if (folded !== undefined) return folded
  if (SEPARATOR.test(char)) folded = ' '
  else if (char === '\u2019' || char === '\u2018' || char === '\u02bc') folded = "'"
  else folded = char.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(MARKS, '')
  // Bounded: a text has few distinct non-ASCII characters, but an attacker could send many.
  if (nonAsciiFolds.size < 20_000) nonAsciiFolds.set(char, folded)
  return folded
}

/** Growable buffers, reused across calls: folding runs synchronously, one text at a time. */
let codes = new Uint16Array(4096)
let startsBuffer = new Int32Array(4096)
let endsBuffer = new Int32Array(4096)

function grow(needed: number): void {
  let size = codes.length
  while (size < needed) size *= 2
  if (size === codes.length) return
  const nextCodes = new Uint16Array(size)
  nextCodes.set(codes)
  codes = nextCodes
  const nextStarts = new Int32Array(size)
  nextStarts.set(startsBuffer)
  startsBuffer = nextStarts
  const nextEnds = new Int32Array(size)
  nextEnds.set(endsBuffer)
  endsBuffer = nextEnds
}

/** Fold `original` for matching; see the module comment for what folds to what. */
export function foldText(original: string): FoldedText {
  const length = original.length
  grow(length + 16)
  // Locals, not the module buffers: the hot loop stays on registers (re-read after a grow).
  let out = codes
  let starts = startsBuffer
  let ends = endsBuffer
  let n = 0
  let lastWasSpace = false
  for (let i = 0; i < length; ) {
    const code = original.charCodeAt(i)
    if (code < 0x80) {
      if (code === SPACE || code === 0x2d || code === 0x5f || (code >= 0x09 && code <= 0x0d)) {
        if (lastWasSpace) ends[n - 1] = i + 1
        else {
          out[n] = SPACE
          starts[n] = i
          ends[n++] = i + 1
          lastWasSpace = true
        }
      } else {
        out[n] = code >= 0x41 && code <= 0x5a ? code + 32 : code
        starts[n] = i
        ends[n++] = i + 1
        lastWasSpace = false
      }
      i++
      continue
    }
    const low = code >= 0xd800 && code <= 0xdbff ? original.charCodeAt(i + 1) : 0
    const size = low >= 0xdc00 && low <= 0xdfff ? 2 : 1
    const folded = foldChar(original.slice(i, i + size))
    if (folded === '' || (folded === ' ' && lastWasSpace)) {
      // Marks and repeated separators widen the previous character instead of emitting one.
      if (n > 0) ends[n - 1] = i + size
    } else {
      // Compatibility decomposition may expand one character into several (e.g. ligatures).
      if (folded.length > size) {
        grow(n + folded.length + (length - i) + 16)
        out = codes
        starts = startsBuffer
        ends = endsBuffer
      }
      for (let k = 0; k < folded.length; k++) {
        out[n] = folded.charCodeAt(k)
        starts[n] = i
        ends[n++] = i + size
      }
      lastWasSpace = folded === ' '
    }
    i += size
  }
  return {
    text: Buffer.from(out.buffer, out.byteOffset, n * 2).toString('utf16le'),
    starts: starts.subarray(0, n),
    ends: ends.subarray(0, n),
  }
}

/** Fold a term for the matcher: the folded text, trimmed. */
export function foldTerm(term: string): string {
  return foldText(term).text.trim()
}
