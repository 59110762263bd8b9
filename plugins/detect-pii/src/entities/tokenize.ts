import { codeUnits } from '../code-units.js'
import { astralClass, LETTER, LOWER, MARK, UPPER, unitClass } from './char-class.js'

/**
 * A word of the text, with the facts the entity tagger reads. The lower-case
 * key is made on first use: in ordinary text most words are never looked up.
 */
export class Token {
  // Fields are declared, not defined, and assigned in the constructor: V8 builds these objects (one per word)
  // faster by plain assignment than by the class-field definitions TypeScript emits for ES2022.
  /** UTF-16 offset of the first character. */
  declare readonly start: number
  /** End offset, without a trailing possessive "'s". */
  declare readonly end: number
  /** First letter is upper case. */
  declare readonly cap: boolean
  /** Two or more letters, all upper case. */
  declare readonly allCaps: boolean
  /** Starts a sentence, line or quoted turn. */
  declare readonly sentenceStart: boolean
  /** A "." follows directly ("Mr.", "Ltd.", "J."). */
  declare readonly dot: boolean
  /** A possessive "'s" follows. */
  declare readonly possessive: boolean
  /** Looks like code or a domain: camelCase inside, or glued to a "." and more letters ("Wrap.afterConnect"). */
  declare readonly codeLike: boolean
  /** Lexicon flags of the key, filled in by the tagger on first use; -1 until then. */
  declare flags: number
  readonly #text: string
  #key: string | undefined

  constructor(
    text: string,
    start: number,
    end: number,
    cap: boolean,
    allCaps: boolean,
    sentenceStart: boolean,
    dot: boolean,
    possessive: boolean,
    codeLike: boolean,
  ) {
    this.start = start
    this.end = end
    this.cap = cap
    this.allCaps = allCaps
    this.sentenceStart = sentenceStart
    this.dot = dot
    this.possessive = possessive
    this.codeLike = codeLike
    this.flags = -1
    this.#text = text
  }

  /** Lower-case form, the gazetteer key. */
  get key(): string {
    this.#key ??= this.#text.slice(this.start, this.end).toLowerCase()
    return this.#key
  }
}

const APOSTROPHE = 39
const RIGHT_QUOTE = 0x2019
const HYPHEN = 45
const DOT = 46
const WORD_CHAR = LETTER | MARK
// An upper-case letter after two lower-case ones, except in Mc/Mac/De/La/Van-style surnames.
// ("GmbH", "mbH" are legal forms, not code.)
const CAMEL = /^(?!(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|Du|Fitz|O'|D'|GmbH\b|mbH\b))\p{L}*\p{Ll}{2}\p{Lu}/u

/** Set in a {@link classAt} result when the code point takes two code units. */
const WIDE = 0x100

/** Classes of the code point at `i` (none for a lone surrogate), plus {@link WIDE} for a surrogate pair. */
function classAt(units: Uint16Array, i: number): number {
  const c = units[i]
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < units.length) {
    const d = units[i + 1]
    if (d >= 0xdc00 && d <= 0xdfff) return astralClass((c - 0xd800) * 0x400 + d - 0xdc00 + 0x10000) | WIDE
  }
  return unitClass(c)
}

/** True for the characters after which a word opens a sentence: . ! ? : ; " “ ” > * • and a line break. */
function endsSentence(c: number): boolean {
  switch (c) {
    case 46:
    case 33:
    case 63:
    case 58:
    case 59:
    case 34:
    case 0x201c:
    case 0x201d:
    case 62:
    case 42:
    case 0x2022:
    case 10:
      return true
    default:
      return false
  }
}

/**
 * Splits text into words (a letter or mark, then letters, marks, apostrophes
 * and hyphens, ending on a letter or mark); offsets are UTF-16 code units.
 * One pass over the code units (`units`, see {@link codeUnits}): a regular
 * expression per word cost more than the rest of the tagger.
 */
export function tokenize(text: string, units: Uint16Array = codeUnits(text)): Token[] {
  const tokens: Token[] = []
  const n = units.length
  let previousEnd = 0
  let i = 0
  while (i < n) {
    const c = units[i]
    // ASCII is decided inline; other characters go through the memoised class table.
    let first: number
    if (c < 128) {
      if ((c | 32) < 97 || (c | 32) > 122) {
        i++
        continue
      }
      first = c < 97 ? UPPER : LOWER
    } else {
      first = classAt(units, i)
      if (!(first & WORD_CHAR)) {
        i += first & WIDE ? 2 : 1
        continue
      }
    }
    const start = i
    i += first & WIDE ? 2 : 1
    let matchEnd = i
    // While reading the word: its first lower-case letter (for allCaps) and its first unit from the third on
    // that is an upper-case letter or the high unit of a surrogate pair (camelCase is possible only then, and
    // CAMEL runs only then), so neither needs a second pass over the word.
    let lowerAt = first & LOWER ? start : -1
    let camelAt = -1
    while (i < n) {
      const d = units[i]
      if (d < 128) {
        if ((d | 32) >= 97 && (d | 32) <= 122) {
          if (d >= 97) {
            if (lowerAt < 0) lowerAt = i
          } else if (camelAt < 0 && i >= start + 2) camelAt = i
          matchEnd = ++i
        } else if (d === APOSTROPHE || d === HYPHEN) i++
        else break
        continue
      }
      if (d === RIGHT_QUOTE) {
        i++
        continue
      }
      const bits = classAt(units, i)
      if (!(bits & WORD_CHAR)) break
      if (lowerAt < 0 && bits & LOWER) lowerAt = i
      // A surrogate pair counts: its high unit may start an upper-case letter.
      if (camelAt < 0 && i >= start + 2 && bits & (UPPER | WIDE)) camelAt = i
      i += bits & WIDE ? 2 : 1
      matchEnd = i
    }
    // Apostrophes or hyphens after the last letter are not part of the word; the next word starts after them.
    i = matchEnd
    let end = matchEnd
    let possessive = false
    if (end - start > 2) {
      const s = units[end - 1]
      const q = units[end - 2]
      if ((s === 115 || s === 83) && (q === APOSTROPHE || q === RIGHT_QUOTE)) {
        end -= 2
        possessive = true
      }
    }
    let k = start - 1
    while (k >= previousEnd && (units[k] === 32 || units[k] === 9)) k--
    const after = end < n ? units[end] : -1
    tokens.push(
      new Token(
        text,
        start,
        end,
        // As unitClass(units[start]) reads it: the high unit of a surrogate pair is no upper-case letter.
        (first & (UPPER | WIDE)) === UPPER,
        end - start > 1 && !(lowerAt >= 0 && lowerAt < end),
        k < 0 || endsSentence(units[k]),
        after === DOT && !possessive,
        possessive,
        (camelAt >= 0 && camelAt < end && CAMEL.test(text.slice(start, end))) ||
          (after === DOT && end + 1 < n && (unitClass(units[end + 1]) & LETTER) !== 0) ||
          (start > 0 && units[start - 1] === DOT),
      ),
    )
    previousEnd = matchEnd
  }
  return tokens
}

/**
 * True when the text between two words lets them belong to one name ("Mary
 * Ann", "J. R. Smith", "St. John"): a space, or ". " after an initial or a
 * two-letter abbreviation, never after a sentence-ending word.
 */
export function isNameGap(units: Uint16Array, previous: Token, next: Token): boolean {
  const length = next.start - previous.end
  if (length === 1) {
    const c = units[previous.end]
    return c === 32 || c === 0xa0
  }
  return (
    length === 2 &&
    units[previous.end] === DOT &&
    units[previous.end + 1] === 32 &&
    previous.dot &&
    previous.key.length <= 2
  )
}
