/**
 * Writes `model/common-words.txt`: ordinary words of the languages in the
 * training files, one lower-case word a line, so that a capitalised ordinary
 * word ("Veuillez", "Jumatatu", "Больше") at a sentence start or in a heading
 * is not read as a name. Run offline:
 *
 *   node plugins/detect-pii/dist/train/build-common-words.js
 *
 * A word is kept when, away from sentence starts, it is written in lower case
 * at least {@link MIN_LOWER} times and in at least {@link MIN_SHARE} of its
 * occurrences, it is no first or last name the gazetteer knows (those stay the
 * model's call), and it is at least 2 letters long. An acronym ("GDP", "DNA")
 * is kept when it occurs at least twice outside every name span of documents
 * that mark all three kinds of name, and never inside one. Weekday and month
 * names of {@link LOCALES} come from `Intl` (ICU). Names the gazetteer knows
 * are never added. (Adding capitalised words seen outside name spans, such as
 * German nouns, cost organisation precision on the calibration split: left out.) Read: the text outside
 * every name span of the training part of pii-train.jsonl, and the rows of
 * injection-train.jsonl that are not in the benign held-out part (the same
 * split `eval/eval.ts` holds out). Held-out rows are never read.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { COMMON_WORDS_URL, loadGazetteer } from '../src/entities/gazetteer.js'
import { DATASETS, isHeldOut } from './split.js'

const MIN_LOWER = 3
// Languages of the training files and of prompts seen in the benign set, for weekday and month names.
const LOCALES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'da',
  'sv',
  'nb',
  'fi',
  'pl',
  'cs',
  'sk',
  'hr',
  'sr',
  'sl',
  'ro',
  'hu',
  'tr',
  'ru',
  'uk',
  'bg',
  'el',
  'sw',
  'id',
  'ms',
  'vi',
  'tl',
  'et',
  'lv',
  'lt',
]
const MIN_SHARE = 0.5

interface Row {
  id?: string
  text: string
  spans?: { start: number; end: number }[]
}
const lower = new Map<string, number>()
const upper = new Map<string, number>()
/** Acronyms ("GDP", "DNA") outside every name span of documents that mark all three kinds of name, and inside one. */
const acronyms = new Map<string, number>()
const acronymsInNames = new Set<string>()
const WORD = /\p{L}[\p{L}\p{M}]*/gu

function count(text: string, skip: { start: number; end: number }[] = []): void {
  for (const m of text.matchAll(WORD)) {
    const start = m.index
    if (skip.some((s) => start < s.end && s.start < start + m[0].length)) continue
    // Sentence start: only spaces and quotes since the start of the text or a . ! ? : or line break.
    let k = start - 1
    while (k >= 0 && /[\s"'«»“”(\-*#]/.test(text[k]) && text[k] !== '\n') k--
    if (k < 0 || /[.!?:\n;]/.test(text[k])) continue
    const word = m[0]
    const key = word.toLowerCase()
    if (key.length < 2 || key === word.toUpperCase()) continue
    const table = word === key ? lower : word[0] !== key[0] ? upper : undefined
    if (table) table.set(key, (table.get(key) ?? 0) + 1)
  }
}

const lines = (name: string): Row[] =>
  readFileSync(new URL(name, DATASETS), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row)
const ACRONYM = /(?<![\p{L}\p{N}])\p{Lu}{2,6}(?![\p{L}\p{N}])/gu
for (const row of lines('pii-train.jsonl')) {
  if (isHeldOut(row.id ?? row.text)) continue
  count(row.text, row.spans)
  const types = (row as { annotated_types?: string[] }).annotated_types ?? []
  if (!['PERSON', 'ORGANIZATION', 'LOCATION'].every((t) => types.includes(t))) continue
  for (const m of row.text.matchAll(ACRONYM)) {
    const key = m[0].toLowerCase()
    const inName = row.spans?.some((s) => s.start < m.index + m[0].length && m.index < s.end)
    if (inName) acronymsInNames.add(key)
    else acronyms.set(key, (acronyms.get(key) ?? 0) + 1)
  }
}
for (const row of lines('injection-train.jsonl')) if (!isHeldOut(row.text)) count(row.text)

const gazetteer = await loadGazetteer({ model: false })
const names = new Set([...gazetteer.firstNames, ...gazetteer.lastNames])
const words: string[] = []
for (const [key, n] of lower) {
  if (n < MIN_LOWER || names.has(key)) continue
  if (n / (n + (upper.get(key) ?? 0)) < MIN_SHARE) continue
  words.push(key)
}
for (const [key, n] of acronyms) if (n >= 2 && !acronymsInNames.has(key) && !names.has(key)) words.push(key)
// Weekday and month names of every locale ICU knows ("Jumatatu", "Alhamisi", "Mittwoch"), from Intl.
for (const locale of Intl.DateTimeFormat.supportedLocalesOf(LOCALES)) {
  for (let day = 0; day < 7; day++) {
    const date = new Date(Date.UTC(2024, 0, 1 + day))
    for (const weekday of ['long', 'short'] as const)
      for (const w of new Intl.DateTimeFormat(locale, { weekday, timeZone: 'UTC' }).format(date).split(/\s+/))
        addDateWord(w)
  }
  for (let month = 0; month < 12; month++) {
    const date = new Date(Date.UTC(2024, month, 15))
    for (const w of new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' })
      .format(date)
      .split(/\s+/))
      addDateWord(w)
  }
}
function addDateWord(w: string): void {
  const key = w.toLowerCase().replace(/[.,]$/, '')
  if (key.length >= 3 && /^\p{L}+$/u.test(key) && !names.has(key)) words.push(key)
}
const unique = [...new Set(words)]
words.length = 0
words.push(...unique)
words.sort()
writeFileSync(COMMON_WORDS_URL, `${words.join('\n')}\n`)
console.log(`wrote ${words.length} words to ${COMMON_WORDS_URL.pathname}`)
