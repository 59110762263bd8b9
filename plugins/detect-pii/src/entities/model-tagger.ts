import type { Detection } from '../pii-types.js'
import { codeTokens } from './code-regions.js'
import type { Gazetteer } from './gazetteer.js'
import {
  CITY,
  COMMON,
  COUNTRY,
  DICTIONARY,
  FIRST,
  flagCacheOf,
  LAST,
  type Lexicon,
  lexiconOf,
  ORG_SUFFIX,
  PLACE,
  REGION,
  TECH,
  TITLE,
} from './lexicon.js'
import { type NerModel, spansOf, type TaggedSpan, tagTokens, tokenView } from './ner-model.js'
import { isNameGap, type Token, tokenize } from './tokenize.js'

/**
 * Person, place and organisation names in cased text, by the trained model,
 * then two rules the training data cannot teach: words in code are never
 * names (they are not even scored), and a name made only of technology words
 * ("Golang", "LLMs", "DAX") is none.
 */
/** Organisation suffixes written with a dot ("Smith Ltd."): the dot is part of the name, not the sentence. */
export const ABBREVIATIONS = new Set([
  'ltd',
  'inc',
  'co',
  'corp',
  'bros',
  'llc',
  'plc',
  'jr',
  'sr',
  'ag',
  'sa',
  'nv',
  'bv',
  'kg',
  'spa',
  'srl',
])

export function tagWithModel(
  text: string,
  units: Uint16Array,
  g: Gazetteer,
  model: NerModel,
  tokens: Token[] = tokenize(text, units),
  skip: Uint8Array | undefined = codeTokens(text, tokens),
): Detection[] {
  const lexicon = lexiconOf(g)
  if (tokens.length === 0) return []
  const cache = flagCacheOf(lexicon)
  const flagsOf = (t: Token) => {
    if (t.flags < 0) t.flags = cache.flags(units, t)
    return t.flags
  }
  const view = tokenView(tokens, units, true)
  const result = tagTokens(model, view, flagsOf, skip)
  const out: Detection[] = []
  for (const whole of spansOf(result))
    for (const tagged of splitAtBreaks(units, tokens, whole, flagsOf)) {
      const span = trimPronoun(tokens, tagged)
      if (
        !span ||
        (span.from === span.to && tokens[span.from].sentenceStart && flagsOf(tokens[span.from]) & COMMON) ||
        isTechnology(tokens, span.from, span.to, flagsOf) ||
        isEveryday(tokens, span.from, span.to, flagsOf) ||
        inTitlePhrase(units, tokens, span.from, span.to, flagsOf)
      )
        continue
      const type =
        span.type !== 'LOCATION' &&
        (isPlaceName(text, tokens, span.from, span.to, lexicon) || placeAfterCue(tokens, span, flagsOf))
          ? 'LOCATION'
          : span.type
      if (type === 'ORGANIZATION' && !isStrongOrganisation(tokens, span, flagsOf)) continue
      const last = tokens[span.to]
      // Keep the abbreviation dot of "Ltd." / "Inc." in an organisation's span.
      const dot = last.dot && span.type === 'ORGANIZATION' && ABBREVIATIONS.has(last.key) ? 1 : 0
      out.push({
        type,
        start: tokens[span.from].start,
        end: last.end + dot,
        score: Math.min(span.score, 0.99),
      })
    }
  return out
}

/** Lowest model score of an organisation without a legal suffix (chosen on the calibration split, `train/tune.ts`). */
export const ORGANIZATION_MIN_SCORE = 0.8

/**
 * An organisation name is reported only on strong evidence: it ends in a
 * legal suffix ("Acme GmbH"), or the model is sure of it and it is more than
 * one ordinary word (calibration split: ORGANIZATION P/R 0.787/0.379 →
 * 0.792/0.362, benign tuning prompts with an organisation 393 → 357). Acronyms that the
 * training text uses as ordinary terms ("GDP", "DNA") are everyday words
 * (`model/common-words.txt`) and dropped before this.
 */
function isStrongOrganisation(
  tokens: readonly Token[],
  span: TaggedSpan,
  flagsOf: (t: Token) => number,
): boolean {
  if (flagsOf(tokens[span.to]) & ORG_SUFFIX && span.to > span.from) return true
  // A lone ordinary word ("Determiner", "Statistics", "Apple") is weak evidence whatever the score.
  const flags = flagsOf(tokens[span.from])
  if (span.from === span.to && flags & (COMMON | DICTIONARY) && !(flags & (FIRST | LAST | PLACE)))
    return false
  return span.score >= ORGANIZATION_MIN_SCORE
}

/**
 * A tagged span cut where a new sentence or line starts inside it ("Robert. John", "Seattle. Majiji") or
 * where its words are not joined as a name's are (digits, commas, brackets: "Bob,25,Los Angeles"): the
 * greedy tagger may continue a name over them, a name does not. A dot after an initial, a title or an
 * abbreviation ("J. Smith", "Dr. Who", "Co. Ltd") does not end a sentence here. One-letter parts are dropped.
 */
function splitAtBreaks(
  units: Uint16Array,
  tokens: readonly Token[],
  span: TaggedSpan,
  flagsOf: (t: Token) => number,
): TaggedSpan[] {
  const out: TaggedSpan[] = []
  let from = span.from
  for (let k = span.from + 1; k <= span.to + 1; k++) {
    if (k <= span.to && !breaksName(units, tokens[k - 1], tokens[k], flagsOf)) continue
    if (k - 1 > from || tokens[from].end - tokens[from].start > 1) out.push({ ...span, from, to: k - 1 })
    from = k
  }
  return out
}

function breaksName(
  units: Uint16Array,
  previous: Token,
  next: Token,
  flagsOf: (t: Token) => number,
): boolean {
  if (next.sentenceStart) {
    const dotted =
      previous.dot &&
      (previous.key.length <= 2 || flagsOf(previous) & TITLE || ABBREVIATIONS.has(previous.key))
    if (!dotted) return true
  }
  for (let i = previous.end; i < next.start; i++) {
    const c = units[i]
    // Spaces, and the . & ' ’ - of "J. R.", "Johnson & Johnson", "O' Neil", "Smith's"; letters of a possessive "s".
    if (c === 32 || c === 0xa0 || c === 46 || c === 38 || c === 39 || c === 0x2019 || c === 45 || c === 115)
      continue
    return true
  }
  return false
}

/**
 * True when every word of the span is an everyday word and none is a known
 * name, place or organisation suffix: a heading or a capitalised phrase
 * ("Clarity Over Jargon", "Career Goals", "Unsatisfied"), not a name.
 */
export function isEveryday(
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOf: (t: Token) => number,
): boolean {
  // A lone dictionary word may be a surname no list has ("Trump", "Cook"): the model decides those.
  const everyday = from === to ? COMMON : COMMON | DICTIONARY
  for (let k = from; k <= to; k++) {
    const flags = flagsOf(tokens[k])
    // An organisation suffix counts only where suffixes go, at the end ("Royal Society", not "Society and …").
    const suffix = k === to ? ORG_SUFFIX : 0
    if (!(flags & everyday) || flags & (FIRST | LAST | PLACE | suffix)) return false
  }
  return true
}

/**
 * True when the span's words are a country or region name ("United States" read as an organisation), or
 * a city name that is no first or last name ("San Francisco", "Toulouse" read as a person or firm).
 */
function isPlaceName(
  text: string,
  tokens: readonly Token[],
  from: number,
  to: number,
  lexicon: Lexicon,
): boolean {
  const key = text.slice(tokens[from].start, tokens[to].end).toLowerCase().replace(/\s+/g, ' ')
  const flags = lexicon.get(key) ?? 0
  return (flags & (COUNTRY | REGION)) !== 0 || ((flags & CITY) !== 0 && (flags & (FIRST | LAST)) === 0)
}

/**
 * True when the span is the tail or head of a longer capitalised phrase of
 * dictionary words ("Clarity Over Jargon", "Power Of Habit"): a title in
 * title case, not a name inside one.
 */
function inTitlePhrase(
  units: Uint16Array,
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOf: (t: Token) => number,
): boolean {
  // Titles are short: looking at most 6 words each way keeps a text of capitalised words linear.
  let start = from
  while (
    start > 0 &&
    from - start < 6 &&
    tokens[start - 1].cap &&
    isNameGap(units, tokens[start - 1], tokens[start])
  )
    start--
  let end = to
  while (
    end + 1 < tokens.length &&
    end - to < 6 &&
    tokens[end + 1].cap &&
    isNameGap(units, tokens[end], tokens[end + 1])
  )
    end++
  if (start === from && end === to) return false
  for (let k = start; k <= end; k++) {
    const flags = flagsOf(tokens[k])
    if (!(flags & (COMMON | DICTIONARY | TECH)) || flags & (FIRST | LAST | PLACE | ORG_SUFFIX)) return false
  }
  return true
}

/** The span without a trailing pronoun "I" ("May I …", "Can I …"); undefined when nothing is left. */
function trimPronoun(tokens: readonly Token[], span: TaggedSpan): TaggedSpan | undefined {
  const last = tokens[span.to]
  if (last.end - last.start !== 1 || last.key !== 'i' || last.dot) return span
  return span.to > span.from ? { ...span, to: span.to - 1 } : undefined
}

// Prepositions after which a known place name is the place, not a person or firm of that name ("in Geneva").
const PLACE_PREPOSITIONS = new Set(['in', 'near', 'from', 'to', 'aus', 'nach', 'en', 'à', 'i', 'w', 'v', 'u'])

/** True when a one-word name that the gazetteers know as a place follows "in", "from", "near", …. */
function placeAfterCue(tokens: readonly Token[], span: TaggedSpan, flagsOf: (t: Token) => number): boolean {
  if (span.from !== span.to || span.from === 0 || !(flagsOf(tokens[span.from]) & PLACE)) return false
  const before = tokens[span.from - 1]
  return !before.cap && PLACE_PREPOSITIONS.has(before.key) && tokens[span.from].start - before.end === 1
}

/** True when every word of the span is a technology or product word. */
export function isTechnology(
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOf: (t: Token) => number,
): boolean {
  for (let k = from; k <= to; k++) if (!(flagsOf(tokens[k]) & TECH)) return false
  return true
}

/**
 * "@jsmith", "@andy_carey151": a social handle names a person (or an account that stands for one), in
 * any casing. The span is the handle without its "@". Not after a word character or "/" (an e-mail
 * address, a path), not before "(", "/" or "." plus a word character (a decorator call, a package scope
 * "@types/node", a member "@app.route"), not in code, and not a capitalised word alone on its line
 * ("@Override").
 */
export function findHandles(
  text: string,
  tokens: readonly Token[],
  skip: Uint8Array | undefined,
): Detection[] {
  const out: Detection[] = []
  if (!text.includes('@')) return out
  for (const m of text.matchAll(HANDLE)) {
    const start = m.index + 1
    const end = start + m[1].length
    if (!/[A-Za-z]/.test(m[1]) || NOT_HANDLES.has(m[1].toLowerCase())) continue
    if (
      /^[A-Z][a-z]+[A-Z]?[a-z]*$/.test(m[1]) &&
      (text[end] === '\n' || end === text.length) &&
      !/[^\s]/.test(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index))
    )
      continue
    if (skip && tokens.length) {
      const k = tokenIndexAt(tokens, start)
      if (k >= 0 && skip[k]) continue
    }
    out.push({ type: 'PERSON', start, end, score: 0.8 })
  }
  return out
}

// Annotations, at-rules and group mentions that are written like handles.
const NOT_HANDLES = new Set([
  'param',
  'params',
  'return',
  'returns',
  'throws',
  'throw',
  'type',
  'typedef',
  'property',
  'prop',
  'see',
  'since',
  'example',
  'author',
  'version',
  'deprecated',
  'override',
  'inheritdoc',
  'link',
  'todo',
  'fixme',
  'ts-ignore',
  'media',
  'import',
  'keyframes',
  'font-face',
  'supports',
  'apply',
  'tailwind',
  'layer',
  'mixin',
  'include',
  'extend',
  'use',
  'forward',
  'each',
  'if',
  'else',
  'for',
  'while',
  'component',
  'injectable',
  'input',
  'output',
  'dataclass',
  'staticmethod',
  'classmethod',
  'property',
  'pytest',
  'test',
  'get',
  'post',
  'put',
  'delete',
  'everyone',
  'here',
  'channel',
  'all',
  'team',
  'admin',
  'admins',
  'home',
  'latest',
  'next',
  'beta',
  'alpha',
])

const HANDLE = /(?<![\p{L}\p{N}_@./\\])@([A-Za-z0-9_]{2,30})(?![\p{L}\p{N}_@(/]|\.[\p{L}\p{N}])/gu

/** Index of the token that starts at `offset`, or -1. */
function tokenIndexAt(tokens: readonly Token[], offset: number): number {
  let lo = 0
  let hi = tokens.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (tokens[mid].start < offset) lo = mid + 1
    else if (tokens[mid].start > offset) hi = mid - 1
    else return mid
  }
  return -1
}

/**
 * The detections with the handles added: a handle replaces the name findings inside it ("@LouisReeson"
 * read as "LouisReeson") and keeps their type; both lists are sorted by start.
 */
export function withHandles(found: readonly Detection[], handles: readonly Detection[]): Detection[] {
  if (handles.length === 0) return [...found]
  const out: Detection[] = []
  let h = 0
  for (const d of [...found].sort((a, b) => a.start - b.start)) {
    while (h < handles.length && handles[h].end <= d.start) out.push(handles[h++])
    const handle = handles[h]
    if (handle && d.start < handle.end && handle.start < d.end) {
      if (d.start >= handle.start && d.end <= handle.end) {
        out.push({ ...handle, type: d.type, score: Math.max(d.score, handle.score) })
        h++
        continue
      }
      h++
    }
    out.push(d)
  }
  while (h < handles.length) out.push(handles[h++])
  return out
}
