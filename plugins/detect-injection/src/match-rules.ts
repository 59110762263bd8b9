/**
 * Running the rules over a text and folding their hits into one number: the
 * strongest hit of each category counts, categories add up.
 */
import { ENCODED_WORDS } from './encoded-words.js'
import { NeedleIndex } from './needle-index.js'
import type { Rule, RuleCategory } from './rules/index.js'
import { splitSentences } from './segment.js'

/** Which kind of text is scored: written to the model (`direct`) or returned by a tool (`tool`). */
export type Channel = 'direct' | 'tool'

/** One rule that matched, with its offsets in the scanned text. */
export interface RuleHit {
  readonly id: string
  readonly category: RuleCategory
  readonly weight: number
  readonly start: number
  readonly end: number
  /** For per-segment rules: the line or sentence the hit is in. */
  readonly segment?: { readonly start: number; readonly end: number }
}

/**
 * Lower-case without moving offsets: characters whose lower case is longer
 * (`İ` → `i̇`) stay as they are, so hits on the lower-cased text point into the original.
 */
export function lowerCaseInPlace(text: string): string {
  const lower = text.toLowerCase()
  if (lower.length === text.length) return lower
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const l = text[i].toLowerCase()
    out += l.length === 1 ? l : text[i]
  }
  return out
}

/**
 * A rule list with the automaton over all of its needles and the decoder's
 * encoded words (encoded-words.ts), built once per list: one pass over a text
 * serves both.
 */
interface IndexedRules {
  readonly index: NeedleIndex
  /** Needle indices of each rule, in rule order. */
  readonly needlesOf: readonly (readonly number[])[]
  /** Needle index of each of {@link ENCODED_WORDS}, in that order. */
  readonly encodedIds: Int32Array
}

/** What one pass of a rule list's automaton found in a lower-cased text. */
export interface NeedleFlags {
  /** Flags by the list's needle index (see {@link matchRules}). */
  readonly found: Uint8Array
  /** Flags of {@link ENCODED_WORDS}, in that order (`findPayloads`' `encoded` option). */
  readonly encoded: Uint8Array
}

const indexes = new WeakMap<readonly Rule[], IndexedRules>()

function indexRules(rules: readonly Rule[]): IndexedRules {
  let indexed = indexes.get(rules)
  if (indexed) return indexed
  const ids = new Map<string, number>()
  for (const rule of rules) for (const needle of rule.needles) if (!ids.has(needle)) ids.set(needle, ids.size)
  for (const word of ENCODED_WORDS) if (!ids.has(word)) ids.set(word, ids.size)
  indexed = {
    index: new NeedleIndex([...ids.keys()]),
    needlesOf: rules.map((rule) => rule.needles.map((needle) => ids.get(needle) as number)),
    encodedIds: Int32Array.from(ENCODED_WORDS, (word) => ids.get(word) as number),
  }
  indexes.set(rules, indexed)
  return indexed
}

/**
 * Which needles of `rules` and which encoded words occur in `lower` (the text
 * lower-cased in place), in one pass. Encoded words have no spaces, so reading
 * whitespace runs as one space, as the rules' needles do, finds each where a
 * search of its own would.
 */
export function findNeedles(lower: string, rules: readonly Rule[]): NeedleFlags {
  const { index, encodedIds } = indexRules(rules)
  const found = index.find(lower)
  const encoded = new Uint8Array(encodedIds.length)
  for (let k = 0; k < encodedIds.length; k++) encoded[k] = found[encodedIds[k]]
  return { found, encoded }
}

/**
 * Run `rules` over `text`; per-segment rules see each line or sentence.
 * `needles` is {@link findNeedles} of `lower`, when the caller has it.
 */
export function matchRules(
  text: string,
  channel: Channel,
  rules: readonly Rule[],
  lower = lowerCaseInPlace(text),
  needles?: NeedleFlags,
): RuleHit[] {
  const hits: RuleHit[] = []
  const { index, needlesOf } = indexRules(rules)
  const found = needles ? needles.found : index.find(lower)
  let segments: ReturnType<typeof splitSentences> | undefined
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]
    if (rule.channel === 'tool' && channel !== 'tool') continue
    if (!anyFound(needlesOf[r], found)) continue
    const subject = rule.caseSensitive ? text : lower
    if (!rule.perSegment) {
      const m = rule.pattern.exec(subject)
      if (m) hits.push(hitOf(rule, m.index, m.index + m[0].length))
      continue
    }
    segments ??= splitSentences(lower)
    for (const segment of segments) {
      const m = rule.pattern.exec(segment.text)
      if (m) {
        const hit = hitOf(rule, segment.start + m.index, segment.start + m.index + m[0].length)
        hits.push({ ...hit, segment: { start: segment.start, end: segment.end } })
        break
      }
    }
  }
  return hits
}

function anyFound(ids: readonly number[], found: Uint8Array): boolean {
  for (let i = 0; i < ids.length; i++) if (found[ids[i]] === 1) return true
  return false
}

function hitOf(rule: Rule, start: number, end: number): RuleHit {
  return { id: rule.id, category: rule.category, weight: rule.weight, start, end }
}

/** Sum over categories of the strongest hit in each (negative `meta` hits add their weight). */
export function sumRuleWeights(hits: readonly RuleHit[]): number {
  const best = new Map<RuleCategory, number>()
  for (const hit of hits) {
    const current = best.get(hit.category)
    if (current === undefined || Math.abs(hit.weight) > Math.abs(current)) best.set(hit.category, hit.weight)
  }
  let sum = 0
  for (const w of best.values()) sum += w
  return sum
}
