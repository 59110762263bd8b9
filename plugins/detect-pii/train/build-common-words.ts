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
 * that mark all three kinds of name, and never inside one. Read: the text outside
 * every name span of the training part of pii-train.jsonl, and the rows of
 * injection-train.jsonl that are not in the benign held-out part (the same
 * split `eval/eval.ts` holds out). Held-out rows are never read.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { COMMON_WORDS_URL, loadGazetteer } from '../src/entities/gazetteer.js'
import { DATASETS, isHeldOut } from './split.js'

const MIN_LOWER = 3
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
words.sort()
writeFileSync(COMMON_WORDS_URL, `${words.join('\n')}\n`)
console.log(`wrote ${words.length} words to ${COMMON_WORDS_URL.pathname}`)
