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
/**
 * Flag: a German word that is no name (`model/german-words.txt`). Above the 17 bits the tagger's features read,
 * so the trained model sees no change; only `not-names.ts` reads it, in German text.
 */
export const GERMAN = 1 << 17
/**
 * Flag: a programming language's name (`model/languages.txt`), also when it is a name ("Ruby", "Julia"). Above the
 * bits the tagger reads; `not-names.ts` drops such a name beside a word of code ("a Ruby code", 0.6.6).
 */
export const LANGUAGE = 1 << 18
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
    mark(map, g.germanWords, GERMAN)
    // "Julia", "Ruby", "Dylan" are programming languages and people: a language name that is a name or place stays one.
    for (const word of g.languages) {
      const flags = map.get(word) ?? 0
      map.set(word, flags | LANGUAGE | (flags & (FIRST | LAST | PLACE) ? 0 : TECH))
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
  if (flags !== undefined && flags !== GERMAN) return flags
  if (key.length > 3 && key.endsWith('s')) return (flags ?? 0) | ((lexicon.get(key.slice(0, -1)) ?? 0) & TECH)
  return flags ?? 0
}

/** Words at most this long (UTF-16 code units) are kept in a {@link FlagCache}. */
const CACHED_WORD = 24
/** Slots of a {@link FlagCache} (a power of two). */
const CACHE_SLOTS = 4096

/**
 * {@link flagsOfWord} of a word as written, remembered across texts: most
 * words the tagger looks up ("The", "I", "We", "However") recur in every
 * prompt, and the look-up otherwise builds the lower-case key and probes a
 * map of ~500k words. Keyed by the word's exact code units (compared in full
 * on a hit, so a hit gives what {@link flagsOfWord} gives), one word per
 * slot, a new word replacing the old one.
 */
export class FlagCache {
  readonly #lexicon: Lexicon
  readonly #chars = new Uint16Array(CACHE_SLOTS * CACHED_WORD)
  readonly #lengths = new Uint8Array(CACHE_SLOTS)
  readonly #flags = new Int32Array(CACHE_SLOTS)

  constructor(lexicon: Lexicon) {
    this.#lexicon = lexicon
  }

  /** `flagsOfWord(lexicon, word.key)` of a word at units [start, end) of `units`. */
  flags(
    units: Uint16Array,
    word: { readonly start: number; readonly end: number; readonly key: string },
  ): number {
    const { start, end } = word
    const length = end - start
    if (length > CACHED_WORD) return flagsOfWord(this.#lexicon, word.key)
    let h = 0x811c9dc5
    for (let i = start; i < end; i++) h = Math.imul(h ^ units[i], 0x01000193)
    const slot = (h >>> 0) & (CACHE_SLOTS - 1)
    const chars = this.#chars
    const base = slot * CACHED_WORD
    if (this.#lengths[slot] === length) {
      let same = true
      for (let i = 0; i < length; i++)
        if (chars[base + i] !== units[start + i]) {
          same = false
          break
        }
      if (same) return this.#flags[slot]
    }
    const flags = flagsOfWord(this.#lexicon, word.key)
    for (let i = 0; i < length; i++) chars[base + i] = units[start + i]
    this.#lengths[slot] = length
    this.#flags[slot] = flags
    return flags
  }
}

const flagCaches = new WeakMap<Lexicon, FlagCache>()

/** The {@link FlagCache} of a lexicon, made on first use. */
export function flagCacheOf(lexicon: Lexicon): FlagCache {
  let cache = flagCaches.get(lexicon)
  if (!cache) {
    cache = new FlagCache(lexicon)
    flagCaches.set(lexicon, cache)
  }
  return cache
}
