import type { Detection } from '../pii-types.js'
import { codeTokens } from './code-regions.js'
import type { Gazetteer } from './gazetteer.js'
import {
  COMMON,
  COUNTRY,
  DICTIONARY,
  FIRST,
  flagsOfWord,
  LAST,
  type Lexicon,
  lexiconOf,
  ORG_SUFFIX,
  PLACE,
  REGION,
  TECH,
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
  const flagsOf = (t: Token) => {
    if (t.flags < 0) t.flags = flagsOfWord(lexicon, t.key)
    return t.flags
  }
  const view = tokenView(tokens, units)
  const result = tagTokens(model, view, flagsOf, skip)
  const out: Detection[] = []
  handles(text, units, tokens, result.tags)
  for (const tagged of spansOf(result)) {
    const span = trimPronoun(tokens, tagged)
    if (
      !span ||
      (span.from === span.to && tokens[span.from].sentenceStart && flagsOf(tokens[span.from]) & COMMON) ||
      isTechnology(tokens, span.from, span.to, flagsOf) ||
      isEveryday(tokens, span.from, span.to, flagsOf) ||
      inTitlePhrase(units, tokens, span.from, span.to, flagsOf)
    )
      continue
    const last = tokens[span.to]
    // Keep the abbreviation dot of "Ltd." / "Inc." in an organisation's span.
    const dot = last.dot && span.type === 'ORGANIZATION' && ABBREVIATIONS.has(last.key) ? 1 : 0
    out.push({
      type:
        span.type !== 'LOCATION' &&
        (isPlaceName(text, tokens, span.from, span.to, lexicon) || placeAfterCue(tokens, span, flagsOf))
          ? 'LOCATION'
          : span.type,
      start: tokens[span.from].start,
      end: last.end + dot,
      score: Math.min(span.score, 0.99),
    })
  }
  return out
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

/** True when the span's words are a country or region name ("United States" read as an organisation). */
function isPlaceName(
  text: string,
  tokens: readonly Token[],
  from: number,
  to: number,
  lexicon: Lexicon,
): boolean {
  const key = text.slice(tokens[from].start, tokens[to].end).toLowerCase().replace(/\s+/g, ' ')
  return ((lexicon.get(key) ?? 0) & (COUNTRY | REGION)) !== 0
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
 * "@jsmith": a social handle names a person (or an account that stands for
 * one). Tagged as a person when the model left it untagged; not after a word
 * character (an e-mail address) and not before "(" or "." (a decorator or a
 * member: "@app.route(", "@Override" stays code only inside code lines).
 */
function handles(text: string, units: Uint16Array, tokens: readonly Token[], tags: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]
    if (t.start === 0 || units[t.start - 1] !== 64 || tags[i] !== 0) continue
    const before = t.start > 1 ? units[t.start - 2] : 32
    const after = t.end < units.length ? units[t.end] : 32
    if (
      isWordUnit(before) ||
      after === 40 ||
      (after === 46 && isWordUnit(units[t.end + 1] ?? 32)) ||
      t.end - t.start < 2
    )
      continue
    if (/^[A-Z][a-z]+[A-Z]/.test(text.slice(t.start, t.end)) && after === 10) continue
    tags[i] = 1
  }
}

function isWordUnit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
}
