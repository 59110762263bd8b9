import { readFileSync } from 'node:fs'
import { loadModel, type NerModel } from './ner-model.js'
import { loadTechTerms } from './tech-terms.js'
import { FUNCTION_WORDS, PARTICLES } from './word-lists.js'

/** Word sets the entity tagger looks tokens up in; every entry is lower case. */
export interface Gazetteer {
  readonly firstNames: ReadonlySet<string>
  readonly lastNames: ReadonlySet<string>
  /** City names, multi-word ones joined by single spaces. */
  readonly cities: ReadonlySet<string>
  /** Country names in many languages, multi-word joined by single spaces. */
  readonly countries: ReadonlySet<string>
  /** States, regions and provinces. */
  readonly regions: ReadonlySet<string>
  /** Everyday words: a capitalised one alone is no name. */
  readonly commonWords: ReadonlySet<string>
  /** German words that are no names (`model/german-words.txt`): capitalised nouns of German text. */
  readonly germanWords: ReadonlySet<string>
  /** Longest place name in words. */
  readonly maxPlaceWords: number
  /** English dictionary words (lower case, no proper names). */
  readonly dictionary: readonly string[]
  /** Product and technology words: never a name. */
  readonly products: ReadonlySet<string>
  /** Programming, data and markup language names (tech words unless also a name or place). */
  readonly languages: ReadonlySet<string>
  /** The trained tagger for cased text; without it the rule tagger reads every text. */
  readonly model?: NerModel
}

type LocaleData = Record<string, Record<string, unknown> | undefined>

const WORD = /^[\p{L}\p{M}][\p{L}\p{M}'’-]*$/u

/** Every string inside nested arrays and objects (faker stores some lists by gender). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}

function addWords(target: Set<string>, values: unknown): void {
  for (const value of strings(values)) {
    for (const word of value.split(/\s+/)) {
      const key = word.toLowerCase()
      if (key.length >= 2 && WORD.test(key) && !PARTICLES.has(key)) target.add(key)
    }
  }
}

function addPhrases(target: Set<string>, values: unknown): number {
  let longest = 1
  for (const value of strings(values)) {
    // Faker patterns ("{{person.firstName}}ville") are generators, not names.
    if (value.includes('{') || value.includes('#')) continue
    const key = value.toLowerCase().replace(/\s+/g, ' ').trim()
    if (key.length < 2) continue
    target.add(key)
    longest = Math.max(longest, key.split(' ').length)
  }
  return longest
}

// Short forms faker lists do not carry.
const EXTRA_COUNTRIES = [
  'usa',
  'u.s.a',
  'uk',
  'uae',
  'u.k',
  'england',
  'scotland',
  'wales',
  'holland',
  'america',
  'czech republic',
  'south korea',
  'north korea',
  'russia',
  'vietnam',
  'iran',
  'syria',
  'laos',
  'bolivia',
  'venezuela',
  'tanzania',
]
// Stop words of the languages whose capitalised function words open sentences most often.
const STOPWORD_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'da', 'no', 'pl'] as const

/**
 * Ordinary words of the training data's languages that no name list has (`train/build-common-words.ts`),
 * one lower-case word a line.
 */
export const COMMON_WORDS_URL = new URL('../../../model/common-words.txt', import.meta.url)
/** German words that are no names, one a line (`train/build-german-words.ts`). */
export const GERMAN_WORDS_URL = new URL('../../../model/german-words.txt', import.meta.url)

/**
 * Builds the gazetteer from the locale data of `@faker-js/faker` (MIT): first
 * names, last names, cities, countries and regions of all its ~70 locales;
 * everyday words from faker's English word lists, `random-words` (MIT, ~2000
 * common words), the stop words of `stopwords-iso` (MIT) and `model/common-words.txt`. Imported lazily because the data
 * is several megabytes; this is the "model" `ready()` loads.
 */
export async function loadGazetteer(options: { model?: boolean } = {}): Promise<Gazetteer> {
  const faker = (await import('@faker-js/faker')) as unknown as Record<
    string,
    { metadata?: unknown } & LocaleData
  >
  const firstNames = new Set<string>()
  const lastNames = new Set<string>()
  const cities = new Set<string>()
  const countries = new Set<string>(EXTRA_COUNTRIES)
  const regions = new Set<string>()
  const commonWords = new Set<string>(FUNCTION_WORDS)
  let maxPlaceWords = 1
  for (const locale of Object.values(faker)) {
    if (!locale || typeof locale !== 'object' || !('metadata' in locale)) continue
    addWords(firstNames, [locale.person?.first_name, locale.person?.middle_name])
    addWords(lastNames, locale.person?.last_name)
    maxPlaceWords = Math.max(maxPlaceWords, addPhrases(cities, locale.location?.city_name))
    maxPlaceWords = Math.max(maxPlaceWords, addPhrases(countries, locale.location?.country))
    maxPlaceWords = Math.max(maxPlaceWords, addPhrases(regions, locale.location?.state))
  }
  const english = faker.en
  if (english?.word) for (const list of Object.values(english.word)) addWords(commonWords, list)
  // Its type declarations name the list `wordsList`; the module exports `wordList`.
  addWords(commonWords, ((await import('random-words')) as unknown as { wordList: string[] }).wordList)
  const stopwords = await import('stopwords-iso/stopwords-iso.json', { with: { type: 'json' } })
  const lists = stopwords.default as unknown as Record<string, string[]>
  for (const language of STOPWORD_LANGUAGES) addWords(commonWords, lists[language])
  for (const word of readFileSync(COMMON_WORDS_URL, 'utf8').split('\n')) if (word) commonWords.add(word)
  const tech = loadTechTerms()
  const wordList = ((await import('word-list')) as unknown as { default: string }).default
  return {
    dictionary: readFileSync(wordList, 'utf8').split('\n'),
    products: tech.products,
    languages: tech.languages,
    model: options.model === false ? undefined : loadModel(),
    firstNames,
    lastNames,
    cities,
    countries,
    regions,
    commonWords,
    germanWords: new Set(
      readFileSync(GERMAN_WORDS_URL, 'utf8')
        .split('\n')
        .filter((w) => w),
    ),
    maxPlaceWords: Math.min(maxPlaceWords, 6),
  }
}
