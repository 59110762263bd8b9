/**
 * The held-out split of `injection-train.jsonl`, fixed by a seed: about a
 * fifth of the rows never train a model, fit a combiner or move a threshold;
 * `eval/eval.ts` reports on them. Near-duplicates are kept on one side: a
 * row's group is the rarest-hashing run of eight words it holds (a MinHash
 * of one), so two rows that share most of their text share their group with
 * a probability about equal to their overlap. Rows of the templated sources
 * that reuse a document or an attack template mostly land together; the
 * leave-one-source-out numbers that `train.ts` prints are the stricter test.
 */
import type { Row } from './dataset.js'

/** Seed of the held-out split. */
export const SPLIT_SEED = 20_261_124
/** Share of groups held out. */
export const HELD_OUT_SHARE = 0.2
const SHINGLE = 8

function fnv(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  return (h ^ (h >>> 12)) >>> 0
}

/** The group of a row: the minimum hash over its eight-word runs (its whole text when shorter). */
export function groupOf(text: string, seed = SPLIT_SEED): number {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  if (words.length <= SHINGLE) return fnv(words.join(' ') || text, seed)
  let min = 0xffffffff
  for (let k = 0; k + SHINGLE <= words.length; k++)
    min = Math.min(min, fnv(words.slice(k, k + SHINGLE).join(' '), seed))
  return min
}

/** A number in [0, 1) per group, the same on every run for one seed. */
function unitOf(group: number, seed: number): number {
  return fnv(String(group), seed ^ 0x5bd1e995) / 0x100000000
}

/** True for rows in the held-out part. */
export function isHeldOut(row: Row, seed = SPLIT_SEED): boolean {
  return unitOf(groupOf(row.text, seed), seed) < HELD_OUT_SHARE
}

/** Sources whose positives are real attacks (per the dataset README), reported on their own. */
export const REAL_ATTACK_SOURCES: readonly string[] = [
  'jbb-artifacts:',
  'tasktracker:pair-jailbreak',
  'tasktracker:adaptive-attack',
  'fuzzyai:pap',
  'spikee:standalone',
]

/** True when the row's source is one of {@link REAL_ATTACK_SOURCES}. */
export function isRealAttackSource(source: string): boolean {
  return REAL_ATTACK_SOURCES.some((s) => (s.endsWith(':') ? source.startsWith(s) : source === s))
}

/** Sources assembled by the dataset's build script from pieces (README: do not read their recall as real). */
export function isTemplatedSource(source: string): boolean {
  return (
    source.startsWith('constructed:') ||
    source === 'tasktracker:override+goal' ||
    source === 'spikee:jailbreak+instruction' ||
    source === 'fuzzyai:gcg-suffix'
  )
}
