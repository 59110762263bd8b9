/**
 * Text normalisation before scoring: NFKC, invisible characters removed,
 * look-alike letters folded, and text hidden in Unicode tag characters or
 * variation selectors recovered. Every character of the normalised text keeps
 * the offset of the character it came from, so findings point into the text
 * the caller sent.
 */

/** A normalised text and what normalisation found on the way. */
export interface NormalizedText {
  /** NFKC text without invisible characters; case is kept. */
  readonly text: string
  /**
   * `offsets[i]` is the index in the original text of normalised character `i`;
   * `offsets[text.length]` is the original length. Undefined when the text was
   * left as it was (the offsets are the identity).
   */
  readonly offsets: Int32Array | undefined
  /** Text smuggled in Unicode tag characters (U+E0000–E007F), decoded to ASCII. */
  readonly tagText: string
  /** Original span of the tag characters, when there were any. */
  readonly tagSpan: { start: number; end: number } | undefined
  /** Text smuggled in runs of variation selectors (one byte each), decoded as UTF-8. */
  readonly selectorText: string
  readonly selectorSpan: { start: number; end: number } | undefined
  /** Zero-width characters removed from inside Latin words (used to split trigger words). */
  readonly splitWordInvisibles: number
  /** Bidirectional override and isolate controls removed. */
  readonly bidiControls: number
  /** Cyrillic or Greek letters folded to Latin inside words that mix scripts. */
  readonly foldedConfusables: number
}

// Fast path: printable ASCII and common whitespace need no work.
const PLAIN = /^[\x20-\x7e\t\n\r]*$/

const ZERO_WIDTH = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0xad,
])
const BIDI = new Set([
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x61c,
])

// Cyrillic and Greek letters that render like Latin ones; folded only inside
// words that also contain Latin letters, so real Russian or Greek text is untouched.
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  τ: 't',
  υ: 'u',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
}
// Words are tested one by one: a lookahead over a whole word at every position
// would be quadratic on long runs of letters (CJK text has no spaces).
const LETTERS = /\p{L}+/gu
const LATIN = /\p{Script=Latin}/u
const CYRILLIC_OR_GREEK = /[\u0370-\u03ff\u0400-\u052f]/
const CONFUSABLE_CHAR = /[\u0370-\u03ff\u0400-\u052f]/g

// Zero-width characters are legitimate between letters of some scripts (Khmer
// separates words with them, Persian joins with them); only splits inside Latin
// words count as obfuscation.
function isLatinLetter(code: number): boolean {
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)
  return /\p{Script=Latin}/u.test(String.fromCodePoint(code))
}

/** Decode bytes hidden in variation selectors: VS1–16 carry 0–15, VS17–256 carry 16–255. */
function selectorByte(code: number): number {
  if (code >= 0xfe00 && code <= 0xfe0f) return code - 0xfe00
  if (code >= 0xe0100 && code <= 0xe01ef) return code - 0xe0100 + 16
  return -1
}

function foldConfusables(text: string): { text: string; folded: number } {
  if (!CYRILLIC_OR_GREEK.test(text)) return { text, folded: 0 }
  let folded = 0
  const out = text.replace(LETTERS, (word) => {
    if (!CYRILLIC_OR_GREEK.test(word) || !LATIN.test(word)) return word
    return word.replace(CONFUSABLE_CHAR, (ch) => {
      const latin = CONFUSABLES[ch]
      if (latin === undefined) return ch
      folded++
      return latin
    })
  })
  return { text: out, folded }
}

/**
 * Normalise a text for scoring. NFKC is applied per code point so that each
 * output character maps back to one input character; the rare sequences that
 * compose across code points are left decomposed, which scoring tolerates.
 */
export function normalizeText(input: string): NormalizedText {
  if (PLAIN.test(input)) {
    return {
      text: input,
      offsets: undefined,
      tagText: '',
      tagSpan: undefined,
      selectorText: '',
      selectorSpan: undefined,
      splitWordInvisibles: 0,
      bidiControls: 0,
      foldedConfusables: 0,
    }
  }
  const out: string[] = []
  const offsets: number[] = []
  let tagText = ''
  let tagStart = -1
  let tagEnd = -1
  let selectorBytes: number[] = []
  let bestSelector: { bytes: number[]; start: number; end: number } | undefined
  let selectorStart = -1
  let splitWordInvisibles = 0
  let bidiControls = 0
  let lastCode = 0
  let pendingInvisible = 0
  // A run of ordinary non-ASCII text is normalised in one call; only when NFKC
  // changes its length is it redone per code point to keep the offsets exact.
  let runStart = -1

  const closeSelectorRun = (end: number) => {
    if (selectorBytes.length >= 4 && (!bestSelector || selectorBytes.length > bestSelector.bytes.length)) {
      bestSelector = { bytes: selectorBytes, start: selectorStart, end }
    }
    selectorBytes = []
    selectorStart = -1
  }
  const flushRun = (end: number) => {
    if (runStart < 0) return
    const run = input.slice(runStart, end)
    const normalized = run.normalize('NFKC')
    if (normalized.length === run.length) {
      out.push(normalized)
      for (let k = runStart; k < end; k++) offsets.push(k)
    } else {
      for (let k = runStart; k < end; ) {
        const cp = input.codePointAt(k) as number
        const w = cp > 0xffff ? 2 : 1
        const n = String.fromCodePoint(cp).normalize('NFKC')
        out.push(n)
        for (let j = 0; j < n.length; j++) offsets.push(k)
        k += w
      }
    }
    runStart = -1
  }

  for (let i = 0; i < input.length; ) {
    const code = input.codePointAt(i) as number
    const width = code > 0xffff ? 2 : 1
    const byte = selectorByte(code)
    const special =
      byte >= 0 ||
      (code >= 0xe0000 && code <= 0xe007f) ||
      ZERO_WIDTH.has(code) ||
      BIDI.has(code) ||
      code < 0x20
    if (!special && code >= 0x80) {
      if (pendingInvisible && isLatinLetter(code)) splitWordInvisibles += pendingInvisible
      pendingInvisible = 0
      if (runStart < 0) runStart = i
      lastCode = code
      i += width
      continue
    }
    flushRun(i)
    if (byte >= 0) {
      if (selectorStart < 0) selectorStart = i
      selectorBytes.push(byte)
      i += width
      continue
    }
    if (selectorStart >= 0) closeSelectorRun(i)
    if (code >= 0xe0000 && code <= 0xe007f) {
      if (code >= 0xe0020 && code <= 0xe007e) tagText += String.fromCharCode(code - 0xe0000)
      if (tagStart < 0) tagStart = i
      tagEnd = i + width
    } else if (ZERO_WIDTH.has(code)) {
      if (pendingInvisible || isLatinLetter(lastCode)) pendingInvisible++
    } else if (BIDI.has(code)) {
      bidiControls++
    } else {
      if (pendingInvisible && isLatinLetter(code)) splitWordInvisibles += pendingInvisible
      pendingInvisible = 0
      lastCode = code
      // Control characters other than tab and newlines become spaces.
      out.push(code < 0x20 && code !== 9 && code !== 10 && code !== 13 ? ' ' : String.fromCharCode(code))
      offsets.push(i)
    }
    i += width
  }
  flushRun(input.length)
  if (selectorStart >= 0) closeSelectorRun(input.length)
  offsets.push(input.length)
  const { text, folded } = foldConfusables(out.join(''))
  return {
    text,
    offsets: Int32Array.from(offsets),
    tagText,
    tagSpan: tagStart >= 0 ? { start: tagStart, end: tagEnd } : undefined,
    selectorText: bestSelector ? Buffer.from(bestSelector.bytes).toString('utf8') : '',
    selectorSpan: bestSelector ? { start: bestSelector.start, end: bestSelector.end } : undefined,
    splitWordInvisibles,
    bidiControls,
    foldedConfusables: folded,
  }
}

/** Map a span of the normalised text back to the original text. */
export function originalSpan(
  normalized: NormalizedText,
  start: number,
  end: number,
): { start: number; end: number } {
  const offsets = normalized.offsets
  if (!offsets) return { start, end }
  const last = offsets.length - 1
  const s = offsets[Math.min(start, last)]
  // The end is where the next kept character began, so removed characters inside the span stay in it.
  const e = offsets[Math.min(end, last)]
  return { start: s, end: Math.max(s, e) }
}
