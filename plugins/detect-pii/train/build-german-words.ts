/**
 * Writes `model/german-words.txt`: German words that are no names, one
 * lower-case word a line. German writes every noun with a capital ("Kaffee",
 * "Hektar", "Tassen"), so in German text the tagger reads many of them as
 * names; `src/entities/not-names.ts` drops a PERSON span of German text whose
 * every word is in this list. Run offline:
 *
 *   node plugins/detect-pii/dist/train/build-german-words.js
 *
 * Words: the subtitle frequency list of `@zxcvbn-ts/language-de`
 * (`commonWords`, 12,558 words; MIT; a devDependency read here only, the
 * package ships the written file), and the capitalised words away from
 * sentence starts and outside every name span in German documents (by
 * `germanText`) of the training part of pii-train.jsonl (neither held-out nor
 * calibration documents) and German rows of the tuning part of
 * injection-train.jsonl (the split `eval/eval.ts` holds out is never read)
 * that occur in at least two documents, or in one and in the package's
 * Wikipedia list (alone, that list holds too many names: "Hobson", "Baldur",
 * "Pancho" cost tuning names). Left out: words under 3 letters; every first or
 * last name and place the gazetteer knows, and the package's own first and last
 * name lists; every word inside a PERSON span of a training document; and a
 * word written with a capital away from a sentence start more often in
 * non-German training text than in German documents (a name).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { codeUnits } from '../src/code-units.js'
import { GERMAN_WORDS_URL, loadGazetteer } from '../src/entities/gazetteer.js'
import { germanText } from '../src/entities/not-names.js'
import { tokenize } from '../src/entities/tokenize.js'
import { DATASETS, isCalibration, isHeldOut } from './split.js'

interface Row {
  id?: string
  text: string
  spans?: { type: string; start: number; end: number }[]
}
const require = createRequire(import.meta.url)
const list = (name: string): string[] => require(`@zxcvbn-ts/language-de/src/${name}.json`) as string[]

/** Capitalised words away from sentence starts: in German text (with the documents they occur in), elsewhere. */
const germanCaps = new Map<string, Set<string>>()
const otherCaps = new Map<string, number>()
const inPersons = new Set<string>()
const WORD = /^\p{Lu}[\p{Ll}\p{M}]+$/u

function count(id: string, text: string, spans: Row['spans'] = []): void {
  const units = codeUnits(text)
  const tokens = tokenize(text, units)
  const german = germanText(tokens)
  for (const t of tokens) {
    const span = spans.find((s) => t.start < s.end && s.start < t.end)
    if (span) {
      if (span.type === 'PERSON') inPersons.add(t.key)
      if (span.type !== 'MISC') continue
    }
    if (t.sentenceStart || !WORD.test(text.slice(t.start, t.end))) continue
    if (german) {
      const docs = germanCaps.get(t.key) ?? new Set<string>()
      docs.add(id)
      germanCaps.set(t.key, docs)
    } else otherCaps.set(t.key, (otherCaps.get(t.key) ?? 0) + 1)
  }
}

const rows = (name: string): Row[] =>
  readFileSync(new URL(name, DATASETS), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row)
for (const row of rows('pii-train.jsonl')) {
  const id = row.id ?? row.text
  // The calibration part is where the rule's cost is measured (`train/tune.ts`): not read here either.
  if (!isHeldOut(id) && !isCalibration(id)) count(id, row.text, row.spans)
}
for (const row of rows('injection-train.jsonl')) if (!isHeldOut(row.text)) count(row.text, row.text)

// The gazetteer reads the list it is about to get (unused here): a first run starts from an empty one.
if (!existsSync(GERMAN_WORDS_URL)) writeFileSync(GERMAN_WORDS_URL, '')
const gazetteer = await loadGazetteer({ model: false })
const names = new Set([
  ...gazetteer.firstNames,
  ...gazetteer.lastNames,
  ...gazetteer.cities,
  ...gazetteer.countries,
  ...gazetteer.regions,
  ...list('firstnames'),
  ...list('lastnames'),
])
const candidates = new Set(list('commonWords'))
const wikipedia = new Set(list('wikipedia'))
for (const [key, docs] of germanCaps) if (docs.size >= 2 || wikipedia.has(key)) candidates.add(key)
const words: string[] = []
for (const key of candidates) {
  if (key.length < 3 || !/^[\p{L}\p{M}]+$/u.test(key)) continue
  if (names.has(key) || inPersons.has(key)) continue
  if ((otherCaps.get(key) ?? 0) > (germanCaps.get(key)?.size ?? 0)) continue
  words.push(key)
}
words.sort()
writeFileSync(GERMAN_WORDS_URL, `${words.join('\n')}\n`)
console.log(`wrote ${words.length} words to ${GERMAN_WORDS_URL.pathname}`)
