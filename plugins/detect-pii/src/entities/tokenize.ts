/** A word of the text, with the facts the entity tagger reads. */
export interface Token {
  readonly start: number
  /** End offset, without a trailing possessive "'s". */
  readonly end: number
  /** Lower-case form, the gazetteer key. */
  readonly key: string
  /** First letter is upper case. */
  readonly cap: boolean
  /** Two or more letters, all upper case. */
  readonly allCaps: boolean
  /** Starts a sentence, line or quoted turn. */
  readonly sentenceStart: boolean
  /** A "." follows directly ("Mr.", "Ltd.", "J."). */
  readonly dot: boolean
  /** A possessive "'s" follows. */
  readonly possessive: boolean
  /** Looks like code or a domain: camelCase inside, or glued to a "." and more letters ("Wrap.afterConnect"). */
  readonly codeLike: boolean
}

const WORD = /[\p{L}\p{M}](?:[\p{L}\p{M}'’-]*[\p{L}\p{M}])?/gu
const UPPER = /\p{Lu}/u
const LOWER = /\p{Ll}/u
const SENTENCE_END = /[.!?:;"“”>*•\n]/
// An upper-case letter after two lower-case ones, except in Mc/Mac/De/La/Van-style surnames.
const CAMEL = /^(?!(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|Du|Fitz|O'|D'))\p{L}*\p{Ll}{2}\p{Lu}/u

/**
 * True when the text between two words lets them belong to one name ("Mary
 * Ann", "J. R. Smith", "St. John"): a space, or ". " after an initial or a
 * two-letter abbreviation, never after a sentence-ending word.
 */
export function isNameGap(gap: string, previous: Token): boolean {
  if (gap === ' ' || gap === '\u00a0') return true
  return gap === '. ' && previous.dot && previous.key.length <= 2
}

/** Splits text into words; offsets are UTF-16 code units. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let previousEnd = 0
  for (const m of text.matchAll(WORD)) {
    let word = m[0]
    let possessive = false
    if (word.length > 2 && /['’]s$/i.test(word)) {
      word = word.slice(0, -2)
      possessive = true
    }
    const start = m.index
    const end = start + word.length
    let i = start - 1
    while (i >= previousEnd && (text[i] === ' ' || text[i] === '\t')) i--
    const sentenceStart = i < 0 || SENTENCE_END.test(text[i])
    const first = word[0]
    tokens.push({
      start,
      end,
      key: word.toLowerCase(),
      cap: UPPER.test(first),
      allCaps: word.length > 1 && !LOWER.test(word),
      sentenceStart,
      dot: text[end] === '.' && !possessive,
      possessive,
      codeLike:
        CAMEL.test(word) ||
        (text[end] === '.' && /\p{L}/u.test(text[end + 1] ?? '')) ||
        text[start - 1] === '.',
    })
    previousEnd = m.index + m[0].length
  }
  return tokens
}
