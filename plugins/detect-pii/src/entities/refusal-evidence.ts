import type { Detection } from '../pii-types.js'
import {
  CITY,
  COMMON,
  COUNTRY,
  DICTIONARY,
  FIRST,
  LAST,
  PARTICLE,
  PERSON_CUE,
  REGION,
  TITLE,
} from './lexicon.js'
import { sentenceAround } from './not-names.js'
import type { Token } from './tokenize.js'

/**
 * Refusing needs more evidence than masking. A PERSON finding scoring at
 * least {@link REFUSAL_SCORE} keeps its score only when something besides the
 * tagger's reading says a person is meant; otherwise its score is capped at
 * {@link WEAK_NAME_SCORE}, so it is still reported and masked (min_score 0.5)
 * but no longer refuses the call under the presets' `block_min_score` 0.8.
 * Evidence is any of:
 *
 * - a word of the name is a first name the gazetteer knows ("Anna", "Hamza");
 * - a name of two or more words with a surname the gazetteer knows ("Sherlock
 *   Holmes", "Mahatma Gandhi");
 * - a title or a person cue right before it ("Mrs. Lacson", "Dr. Wertz", "Frau
 *   Müller", "named Kael", "my friend Laran");
 * - a social handle ("@jsmith").
 *
 * What it catches: capitalised words the tagger reads as a person that are
 * no known name — a title ("Chrono Divergence"), a place or building in
 * another language ("Варшавы", "Хатчинсон Холл", "Bedigo"), a noun at a
 * sentence start ("Madaktari", "Gallone"), an invented word ("Flarga"). The
 * cost: names the gazetteer does not know, written without a title or cue
 * (many names in Cyrillic script, rare first names), are masked instead of
 * refused. Chosen on the calibration split and the tuning benign prompts
 * (`train/block-threshold.ts`, `train/strict-refusals.ts`).
 */

/** The presets' `block_min_score`: the score from which a name refuses. */
export const REFUSAL_SCORE = 0.8
/** The score a name without evidence keeps at most: reported and masked, never refused at 0.8. */
export const WEAK_NAME_SCORE = 0.79

/** Person cues of the lexicon that say a person is meant; "by", "with", "love" say too little. */
const WEAK_CUES = new Set(['by', 'with', 'love', 'ask', 'tell', 'thanks', 'thank', 'user'])
/** Person cues that are a bare verb: no cue before a name of a doubtful shape. */
const BARE_VERBS = new Set(['is', 'am'])

type KeyFlags = (key: string) => number

/** The detections, each sure PERSON finding without evidence of a person capped at {@link WEAK_NAME_SCORE}. */
export function withRefusalEvidence(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  found: Detection[],
  flagsOfKey: KeyFlags,
  spanOf: (d: Detection) => { from: number; to: number },
): Detection[] {
  /** The language of the text when the tagger saw no training sentence of it ('' for none of those). */
  let language: Language | undefined
  let english: boolean | undefined
  for (let i = 0; i < found.length; i++) {
    const d = found[i]
    if (d.type !== 'PERSON' || d.score < REFUSAL_SCORE) continue
    if (text.charCodeAt(d.start - 1) === 64) {
      // A handle is evidence, except a documented parameter opening a line: "    @number : integer".
      if (parameterLabel(text, d))
        found[i] = { type: d.type, start: d.start, end: d.end, score: WEAK_NAME_SCORE }
      continue
    }
    const { from, to } = spanOf(d)
    if (from > to || to >= tokens.length) continue
    if (
      doubtfulShape(text, d, tokens, from, to, flagsOfKey) &&
      !cuedBefore(text, tokens, from, flagsOfKey, true)
    ) {
      found[i] = { type: d.type, start: d.start, end: d.end, score: WEAK_NAME_SCORE }
      continue
    }
    const single = from === to && tokens[from].sentenceStart
    language ??= untrainedLanguage(text, units, tokens)
    const question = !single && asked(text, units, tokens, from, to)
    const thing = to > from && thingName(tokens, from, to, flagsOfKey)
    // Looked for only where it matters: a lone word, inside its sentence, that is no known name.
    let unknown =
      from === to && !tokens[from].sentenceStart && (flagsOfKey(tokens[from].key) & (FIRST | LAST)) === 0
    if (unknown) {
      english ??= englishText(tokens)
      unknown = english
    }
    if (!single && !question && !thing && !unknown && language === '') continue
    if (!thing && hasEvidence(text, tokens, from, to, flagsOfKey, question || language !== '', language))
      continue
    found[i] = { type: d.type, start: d.start, end: d.end, score: WEAK_NAME_SCORE }
  }
  return found
}

/** True for "@name" opening a line (after spaces) and followed by a colon: a parameter in a docstring. */
function parameterLabel(text: string, d: Detection): boolean {
  return (
    /^[ \t]*:/.test(text.slice(d.end, d.end + 4)) &&
    /(?:^|\n)[ \t*]*$/.test(text.slice(Math.max(0, d.start - 41), d.start - 1))
  )
}

/**
 * Shapes of a finding that are seldom a name, whatever the words (0.6.10), each capped unless a title, cue,
 * initial or introduction stands right before it ({@link cuedBefore}), known first names included:
 *
 * - it opens with a lower-case word that is no name particle ("van", "de"), in a text that capitalises: a word of
 *   another language ("1788 kolonisinin doğu yarısının adı neydi?", "el uso de la tierra o de la propiedad");
 * - one word right after "the": English puts no article before a person's name ("the mythical creature, the
 *   Griffin", "the Mercury of the myth");
 * - one dictionary word, no surname, right before a number: a mission, model or edition ("Apollo 11", "Apollo 1
 *   Tests"); a first name alone is no dictionary word ("Sarah 4-mal so viel", "Ron 2" keep their reading);
 * - one word the gazetteer knows as a country or region (not only as a city: "Ron", "Austin", "Sydney" keep
 *   their reading) and not as a surname: a place read as a person ("How far away is Missouri from New York by
 *   car?"; the first-name list also holds "Missouri"). A surname that is a place ("Kennedy", "Washington")
 *   keeps its reading; a first name that is a state or country ("Georgia", "Jordan") is masked, refused only
 *   after a title or cue ("my friend Georgia").
 * - in English text, one word that is no surname after a capitalised everyday word or city ({@link partOfTitle}).
 */
function doubtfulShape(
  text: string,
  d: Detection,
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOfKey: KeyFlags,
): boolean {
  const flags = flagsOfKey(tokens[from].key)
  if (LOWER_START.test(text.slice(d.start, d.start + 1)) && (flags & PARTICLE) === 0 && CAPITAL.test(text))
    return true
  if (from !== to) return false
  // "the mythical creature, the Griffin": English puts no article before a person's name.
  if (from > 0 && tokens[from - 1].key === 'the' && text.slice(tokens[from - 1].end, d.start) === ' ')
    return true
  if ((flags & LAST) !== 0) return false
  if (partOfTitle(text, tokens, from, flagsOfKey)) return true
  if ((flags & DICTIONARY) !== 0 && NUMBER_AFTER.test(text.slice(d.end, d.end + 12))) return true
  return (flags & (COUNTRY | REGION)) !== 0
}

/**
 * True when a capitalised everyday word or a city, inside its sentence and no name, title or person cue, stands
 * right before the finding in English text: the finding ends a capitalised name of a thing ("your special Mermaid
 * Margarita", "A Christmas Carol", "The Tampa Bay Bucs have 13 players"). English capitalises no other word there.
 */
function partOfTitle(text: string, tokens: readonly Token[], from: number, flagsOfKey: KeyFlags): boolean {
  if (from === 0) return false
  const before = tokens[from - 1]
  if (!before.cap || before.allCaps || before.sentenceStart || before.end - before.start < 3) return false
  if (text.slice(before.end, tokens[from].start) !== ' ') return false
  const flags = flagsOfKey(before.key)
  if (flags & (FIRST | LAST | TITLE | PERSON_CUE)) return false
  if ((flags & (COMMON | DICTIONARY | CITY)) === 0) return false
  return englishText(tokens)
}

const LOWER_START = /^\p{Ll}/u
const CAPITAL = /\p{Lu}/u
/** A number of up to four digits right after the word, not a time, date, verse or decimal ("Apollo 11 landed"). */
const NUMBER_AFTER = /^ \p{Nd}{1,4}(?![\p{Nd}\p{L}]|[:.,/-]\p{Nd})/u

/** True when the name's sentence is a question ("Sakson Bahçesi Lehçe'de nedir?", "Каким было население Варшавы?"). */
function asked(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  from: number,
  to: number,
): boolean {
  return units[sentenceAround(text, units, tokens[from].start, tokens[to].end).to] === 63
}

/**
 * A name of two or more words, none a known first or last name, ending in an everyday or dictionary word:
 * "Higgs Boson", "Beer Can", "Roth IRA" — a thing more often than a person ("Mary Beard", "Thomas Bach"
 * keep their first name; "Ramses II" its regnal number).
 */
function thingName(tokens: readonly Token[], from: number, to: number, flagsOfKey: KeyFlags): boolean {
  for (let k = from; k <= to; k++) if (flagsOfKey(tokens[k].key) & (FIRST | LAST)) return false
  const last = tokens[to]
  if (REGNAL.test(last.key)) return false
  return (flagsOfKey(last.key) & (COMMON | DICTIONARY)) !== 0
}

/** A regnal number: "ii", "iii", "iv", "ix", … (lower case, as a token key). */
const REGNAL = /^(?:i{1,3}|iv|vi{0,3}|ix|xi{0,3})$/

/**
 * Languages of benign prompts that the tagger's training data lacks, where its reading of capitalised words
 * is weakest (tuning prompts: "Sakson Bahçesi", "Đại lộ Kearney", "Bendi ya …", "Legea Naționalității"):
 * Vietnamese, Swahili, Turkish, Romanian. '' for any other text.
 */
export type Language = 'vi' | 'sw' | 'tr' | 'ro' | ''

const FUNCTION_WORDS: Record<'sw' | 'tr' | 'ro', ReadonlySet<string>> = {
  sw: new Set([
    'ya',
    'kwa',
    'katika',
    'kila',
    'kwenye',
    'baada',
    'zaidi',
    'yake',
    'wake',
    'hiyo',
    'ambayo',
    'kisha',
    'ikiwa',
    'huwa',
    'ni',
    'wa',
    'za',
  ]),
  tr: new Set([
    've',
    'bir',
    'bu',
    'için',
    'ile',
    'hangi',
    'nedir',
    'mı',
    'olan',
    'gibi',
    'daha',
    'nasıl',
    'kadar',
    'kim',
  ]),
  ro: new Set(['și', 'în', 'fost', 'pentru', 'când', 'sunt', 'să', 'cu', 'ale', 'acest', 'această']),
}

/**
 * The text's language when it is one of {@link Language}: three letters only Vietnamese writes (ư ơ, the
 * vowels with a dot below or a hook); two letters only Turkish (ı ğ İ) or Romanian (ă ș ț) writes, or one
 * of them (or Turkish ş) and two function words, one word in eight; for Swahili, " ya " or " kwa " and
 * two function words, one word in eight.
 */
export function untrainedLanguage(text: string, units: Uint16Array, tokens: readonly Token[]): Language {
  // Asked by the non-name rules and again by the refusal check for the same text.
  if (text !== lastText) {
    lastLanguage = readLanguage(text, units, tokens)
    lastText = text
  }
  return lastLanguage
}
let lastText: string | undefined
let lastLanguage: Language = ''

function readLanguage(text: string, units: Uint16Array, tokens: readonly Token[]): Language {
  let vietnamese = 0
  let turkish = 0
  let romanian = 0
  for (let i = 0; i < units.length; i++) {
    const c = units[i]
    if (c < 0x102) continue
    // Not "đ": Croatian and Serbian write it too.
    if ((c >= 0x1ea0 && c <= 0x1ef9) || c === 0x1b0 || c === 0x1a1 || c === 0x1af || c === 0x1a0) vietnamese++
    else if (c === 0x131 || c === 0x11f || c === 0x130 || c === 0x11e) turkish += 2
    else if (c === 0x15f || c === 0x15e) turkish++
    else if (
      c === 0x103 ||
      c === 0x102 ||
      c === 0x219 ||
      c === 0x21b ||
      c === 0x218 ||
      c === 0x21a ||
      c === 0x163
    )
      romanian += 2
  }
  if (vietnamese >= 3) return 'vi'
  // Two letters only Turkish (ı ğ İ) or Romanian (ă ș ț) writes, or one and two function words.
  if (turkish >= 4 || (turkish > 0 && counted(tokens, FUNCTION_WORDS.tr))) return 'tr'
  if (romanian >= 4 || (romanian > 0 && counted(tokens, FUNCTION_WORDS.ro))) return 'ro'
  if ((text.includes(' ya ') || text.includes(' kwa ')) && counted(tokens, FUNCTION_WORDS.sw)) return 'sw'
  return ''
}

/** True when at least two tokens, and one in eight, are among `words`. */
function counted(tokens: readonly Token[], words: ReadonlySet<string>): boolean {
  let n = 0
  for (const t of tokens) if (t.end - t.start <= 7 && words.has(t.key)) n++
  return n >= 2 && n * 8 >= tokens.length
}

function hasEvidence(
  text: string,
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOfKey: KeyFlags,
  question: boolean,
  language: Language,
): boolean {
  // Vietnamese writes the syllables of a name all capitalised: "từ thực", "lập luận" are words.
  if (language === 'vi') for (let k = from; k <= to; k++) if (!tokens[k].cap) return false
  let plain = to > from
  for (let k = from; k <= to; k++) {
    const t = tokens[k]
    const flags = flagsOfKey(t.key)
    if (to > from && flags & LAST) return true
    // Vietnamese syllables are all first names to the gazetteer ("Đồng", "Mỹ", "Hiệp"); in the other languages
    // a known first name opening a sentence may be a word of it (Swahili "Jana", yesterday).
    // Not an all-capital word ("ABD", Turkish for USA): acronyms are no first names.
    if (
      flags & FIRST &&
      !t.allCaps &&
      language !== 'vi' &&
      !(language !== '' && from === to && t.sentenceStart)
    )
      return true
    // An initial inside the name: "Б. Н. Ельцина", "J. R. Tolkien".
    if (k < to && t.dot && t.end - t.start === 1) return true
    if (flags & (COMMON | DICTIONARY) || !t.cap || t.allCaps || /['’]./.test(text.slice(t.start, t.end + 3)))
      plain = false
  }
  // Two or three capitalised words, none an everyday word: "Palle Kreiberg", "Masoud Shojai"; not in a
  // question, where such words are mostly a title or a place of another language ("Anarşinin Maskesi").
  if (plain && !question && to - from <= 2) return true
  // A regnal number in or after it: "Thutmose III", "Пелагий II".
  if (to > from && REGNAL.test(tokens[to].key)) return true
  if (
    to + 1 < tokens.length &&
    /^ (?:I{1,3}|IV|VI{0,3}|IX|XI{0,3})\b/.test(text.slice(tokens[to].end, tokens[to].end + 6))
  )
    return true
  return cuedBefore(text, tokens, from, flagsOfKey)
}

/**
 * True when an initial, a title, a person cue or an introduction stands right before the name; with `strict`, a
 * bare "is" or "am" is no cue ("How far away is Missouri …"; "I am Anna" is an introduction).
 */
function cuedBefore(
  text: string,
  tokens: readonly Token[],
  from: number,
  flagsOfKey: KeyFlags,
  strict = false,
): boolean {
  if (from === 0) return false
  const before = tokens[from - 1]
  const gap = text.slice(before.end, tokens[from].start)
  if (!/^\.?\s{1,2}$/.test(gap)) return false
  // An initial before it: "Дж. Мэдисон", "A. Hamilton".
  if (before.dot && before.cap && before.end - before.start <= 3) return true
  if (INTRODUCTION.test(text.slice(Math.max(0, before.start - 16), tokens[from].start))) return true
  const flags = flagsOfKey(before.key)
  return (
    (flags & TITLE) !== 0 ||
    ((flags & PERSON_CUE) !== 0 && !WEAK_CUES.has(before.key) && !(strict && BARE_VERBS.has(before.key)))
  )
}

/** A person introducing themselves right before the name: "my name is", "ich bin", "je m'appelle", "меня зовут". */
const INTRODUCTION =
  /(?<!\p{L})(?:my name is|name is|i am|i'm|this is|ich bin|ich heiße|mein name ist|je suis|je m'appelle|me llamo|soy|mi chiamo|sono|jeg hedder|jeg er|jag heter|jag är|ik ben|meu nome é|chamo-me|меня зовут|я)\s+$/iu

/** English function words, for {@link englishText}. */
const ENGLISH = new Set([
  'the',
  'and',
  'of',
  'to',
  'is',
  'are',
  'was',
  'in',
  'that',
  'with',
  'for',
  'you',
  'your',
])

/**
 * True for English text: two English function words, one word in eight. There a lone capitalised word that
 * is no known first or last name is doubtful anywhere ("growing Arabidopsis", "the Great Pyramid of Giza",
 * "a planet named Xorbia"); English capitalises no common nouns, so the tagger is surest there — and wrong
 * on the invented and foreign words of prompts.
 */
function englishText(tokens: readonly Token[]): boolean {
  let n = 0
  for (const t of tokens) if (t.end - t.start <= 4 && ENGLISH.has(t.key)) n++
  return n >= 2 && n * 8 >= tokens.length
}
