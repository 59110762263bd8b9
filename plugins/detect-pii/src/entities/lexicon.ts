import type { Gazetteer } from './gazetteer.js'
import {
  ARTICLES,
  LOCATION_CUES,
  ORG_CUES_AFTER,
  ORG_CUES_BEFORE,
  ORG_HEADS,
  ORG_SUFFIXES,
  PARTICLES,
  PERSON_CUES,
  TITLES,
} from './word-lists.js'

/** Flag: a known first name. */
export const FIRST = 1
/** Flag: a known last name. */
export const LAST = 1 << 1
/** Flag: an everyday word. */
export const COMMON = 1 << 2
/** Flag: a country name (one or more words). */
export const COUNTRY = 1 << 3
/** Flag: a state, region or province. */
export const REGION = 1 << 4
/** Flag: a city. */
export const CITY = 1 << 5
/** Flag: a title written before a name. */
export const TITLE = 1 << 6
/** Flag: a surname particle. */
export const PARTICLE = 1 << 7
/** Flag: a last word of organisation names. */
export const ORG_SUFFIX = 1 << 8
/** Flag: a first word of organisation names. */
export const ORG_HEAD = 1 << 9
/** Flag: a word after which a capitalised word is likely a place. */
export const LOCATION_CUE = 1 << 10
/** Flag: a word before a name that says a person is meant. */
export const PERSON_CUE = 1 << 11
/** Flag: a word before an organisation name. */
export const ORG_CUE_BEFORE = 1 << 12
/** Flag: a word after an organisation name. */
export const ORG_CUE_AFTER = 1 << 13
/** Flag: an article or possessive. */
export const ARTICLE = 1 << 14
/** Flag: a technology or product word (never a name on its own). */
export const TECH = 1 << 15
/** Flag: an English dictionary word (`word-list`, ~274k lower-case words without proper names). */
export const DICTIONARY = 1 << 16
/** Any place flag. */
export const PLACE = COUNTRY | REGION | CITY

/** Every word and phrase the tagger knows, with its flags: one hash look-up per word instead of one per list. */
export type Lexicon = ReadonlyMap<string, number>

const lexicons = new WeakMap<Gazetteer, Lexicon>()

function mark(target: Map<string, number>, words: Iterable<string>, flag: number): void {
  for (const word of words) target.set(word, (target.get(word) ?? 0) | flag)
}

/** The lexicon of a gazetteer and the hand-written word lists, built once per gazetteer (~150 ms). */
export function lexiconOf(g: Gazetteer): Lexicon {
  let lexicon = lexicons.get(g)
  if (!lexicon) {
    const map = new Map<string, number>()
    mark(map, g.firstNames, FIRST)
    mark(map, g.lastNames, LAST)
    mark(map, g.commonWords, COMMON)
    mark(map, g.countries, COUNTRY)
    mark(map, g.regions, REGION)
    mark(map, g.cities, CITY)
    mark(map, TITLES, TITLE)
    mark(map, PARTICLES, PARTICLE)
    mark(map, ORG_SUFFIXES, ORG_SUFFIX)
    mark(map, ORG_HEADS, ORG_HEAD)
    mark(map, LOCATION_CUES, LOCATION_CUE)
    mark(map, PERSON_CUES, PERSON_CUE)
    mark(map, ORG_CUES_BEFORE, ORG_CUE_BEFORE)
    mark(map, ORG_CUES_AFTER, ORG_CUE_AFTER)
    mark(map, ARTICLES, ARTICLE)
    mark(map, g.dictionary, DICTIONARY)
    mark(map, g.products, TECH)
    // "Julia", "Ruby", "Dylan" are programming languages and people: a language name that is a name or place stays one.
    for (const word of g.languages) {
      const flags = map.get(word) ?? 0
      if (!(flags & (FIRST | LAST | PLACE))) map.set(word, flags | TECH)
    }
    lexicon = map
    lexicons.set(g, lexicon)
  }
  return lexicon
}

/**
 * Flags of a lower-case word; a word the lexicon lacks is looked up without a
 * plural "s" ("llms" → "llm", "apis" → "api"), for technology words only.
 */
export function flagsOfWord(lexicon: Lexicon, key: string): number {
  const flags = lexicon.get(key)
  if (flags !== undefined) return flags
  if (key.length > 3 && key.endsWith('s')) return (lexicon.get(key.slice(0, -1)) ?? 0) & TECH
  return 0
}
