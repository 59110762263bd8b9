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
/** Any place flag. */
export const PLACE = COUNTRY | REGION | CITY

/** Every word and phrase the tagger knows, with its flags: one hash look-up per word instead of one per list. */
export type Lexicon = ReadonlyMap<string, number>

const lexicons = new WeakMap<Gazetteer, Lexicon>()

function mark(target: Map<string, number>, words: Iterable<string>, flag: number): void {
  for (const word of words) target.set(word, (target.get(word) ?? 0) | flag)
}

/** The lexicon of a gazetteer and the hand-written word lists, built once per gazetteer (~60 ms). */
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
    lexicon = map
    lexicons.set(g, lexicon)
  }
  return lexicon
}
