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
 * serves both. The automaton flags groups, not needles: group `r` is rule `r`
 * (any of its needles), group `rules.length + k` is encoded word `k`.
 */
interface IndexedRules {
  readonly index: NeedleIndex
  /** Group of the first encoded word ({@link ENCODED_WORDS} follow in order). */
  readonly encodedFrom: number
}

/** What one pass of a rule list's automaton found in a lower-cased text. */
export interface NeedleFlags {
  /** Flags by group (see {@link IndexedRules}): rule `r` may match when `found[r]` is 1. */
  readonly found: Uint8Array
  /** Flags of {@link ENCODED_WORDS}, in that order (`findPayloads`' `encoded` option). */
  readonly encoded: Uint8Array
}

const indexes = new WeakMap<readonly Rule[], IndexedRules>()

function indexRules(rules: readonly Rule[]): IndexedRules {
  let indexed = indexes.get(rules)
  if (indexed) return indexed
  const ids = new Map<string, number>()
  const groupsOf: number[][] = []
  const join = (needle: string, group: number) => {
    let id = ids.get(needle)
    if (id === undefined) {
      id = ids.size
      ids.set(needle, id)
      groupsOf.push([])
    }
    groupsOf[id].push(group)
  }
  for (let r = 0; r < rules.length; r++) for (const needle of rules[r].needles) join(needle, r)
  for (let k = 0; k < ENCODED_WORDS.length; k++) join(ENCODED_WORDS[k], rules.length + k)
  const count = rules.length + ENCODED_WORDS.length
  indexed = { index: new NeedleIndex([...ids.keys()], { of: groupsOf, count }), encodedFrom: rules.length }
  indexes.set(rules, indexed)
  return indexed
}

/**
 * Which rules of `rules` have a needle in `lower` (the text lower-cased in
 * place) and which encoded words occur, in one pass. Encoded words have no
 * spaces, so reading whitespace runs as one space, as the rules' needles do,
 * finds each where a search of its own would.
 */
export function findNeedles(lower: string, rules: readonly Rule[]): NeedleFlags {
  const { index, encodedFrom } = indexRules(rules)
  const found = index.find(lower)
  return { found, encoded: found.subarray(encodedFrom) }
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
  const found = needles ? needles.found : indexRules(rules).index.find(lower)
  let segments: ReturnType<typeof splitSentences> | undefined
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]
    if (rule.channel === 'tool' && channel !== 'tool') continue
    if (found[r] !== 1) continue
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

function hitOf(rule: Rule, start: number, end: number): RuleHit {
  return { id: rule.id, category: rule.category, weight: rule.weight, start, end }
}

/**
 * Sum over categories of the strongest hit in each (negative `meta` hits add
 * their weight), added in the order of each category's first hit. A text has
 * at most a few dozen hits, so each category is looked up by a scan of the
 * hits instead of a table built per call.
 */
export function sumRuleWeights(hits: readonly RuleHit[]): number {
  let sum = 0
  for (let i = 0; i < hits.length; i++) {
    const category = hits[i].category
    let first = true
    for (let j = 0; j < i && first; j++) first = hits[j].category !== category
    if (!first) continue
    let best = hits[i].weight
    for (let j = i + 1; j < hits.length; j++) {
      if (hits[j].category === category && Math.abs(hits[j].weight) > Math.abs(best)) best = hits[j].weight
    }
    sum += best
  }
  return sum
}
