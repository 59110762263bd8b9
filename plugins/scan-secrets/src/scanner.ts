import type { ClassificationLevel } from '@gov/core'
import type { AllowList } from './allow-list.js'
import { shannonEntropy } from './entropy.js'
import { SECRET_KINDS, type SecretKind } from './kinds.js'
import { isPlaceholder } from './placeholder.js'
import { PRIORITY, type RuleContext, type SecretRule } from './rule.js'

/**
 * Findings one rule without a vendor shape (structural: headers, URLs, PEM,
 * JWT; contextual; generic assignments, named values, lone random tokens)
 * reports per text; it stops looking after that. Vendor-shaped rules have no
 * cap: each of their matches is a key. Rejected candidates cost a
 * regex step and a shape check each, so the cap bounds the expensive part
 * (findings, overlap resolution, reports, redaction) of a hostile text made
 * of thousands of secret-looking assignments; a real text (a 200 KB config
 * has a few hundred) stays far below it.
 */
export const MAX_HEURISTIC_FINDINGS = 512

/** One secret found in a text. Offsets are UTF-16 code units, end exclusive. */
export interface Detection {
  readonly kind: SecretKind
  /** Id of the rule that fired. */
  readonly rule: string
  readonly start: number
  readonly end: number
  readonly score: number
  readonly level: ClassificationLevel
  readonly priority: number
  readonly detail?: Readonly<Record<string, string>>
}

/** What the scanner is built from. */
export interface ScannerOptions {
  readonly rules: readonly SecretRule[]
  /** Kinds switched off (`false`); every other kind is on. */
  readonly kinds: Readonly<Partial<Record<SecretKind, boolean>>>
  readonly entropyThreshold: number
  readonly allowList: AllowList
  /** Findings scored below this are dropped. */
  readonly minScore: number
}

/**
 * Runs the rule table over a text. One case-insensitive pass of a combined
 * regex finds which literal keywords occur (about 7x cheaper than one
 * `includes` per keyword on a 1 KB text); only rules with a keyword present
 * run their own pattern, so a typical prompt runs a handful of ~180 rules.
 * Stateless between calls; cache results outside.
 */
export class SecretScanner {
  readonly #rules: readonly SecretRule[]
  readonly #keywordPattern: RegExp
  /** For each keyword, the other keywords it contains (found at the same place, so never matched on their own). */
  readonly #contained: ReadonlyMap<string, readonly string[]>
  readonly #ctx: RuleContext
  readonly #allowList: AllowList
  readonly #minScore: number
  /** A rule with no keywords (the lone high-entropy token) runs on every text. */
  readonly #hasKeywordlessRule: boolean

  constructor(options: ScannerOptions) {
    this.#rules = options.rules.filter((rule) => options.kinds[rule.kind] !== false)
    const keywords = [...new Set(this.#rules.flatMap((rule) => rule.keywords))].sort(
      (a, b) => b.length - a.length,
    )
    this.#keywordPattern = new RegExp(keywords.map(escapeRegExp).join('|') || '(?!)', 'gi')
    this.#contained = new Map(
      keywords.map((k) => [k, keywords.filter((other) => other !== k && k.includes(other))]),
    )
    this.#ctx = { entropyThreshold: options.entropyThreshold }
    this.#allowList = options.allowList
    this.#minScore = options.minScore
    this.#hasKeywordlessRule = this.#rules.some((rule) => rule.keywords.length === 0)
  }

  /** Number of active rules (after `kinds`). */
  get ruleCount(): number {
    return this.#rules.length
  }

  /** Every secret in `text`, non-overlapping where rules agree, sorted by position. */
  scan(text: string): Detection[] {
    if (text.length < 8) return []
    const present = this.#presentKeywords(text)
    if (present.size === 0 && !this.#hasKeywordlessRule) return []
    const found: Detection[] = []
    for (const rule of this.#rules) {
      if (rule.keywords.length > 0 && !rule.keywords.some((k) => present.has(k))) continue
      this.#runRule(rule, text, found)
    }
    return resolveOverlaps(found)
  }

  /** Keywords that occur in the text; steps one character at a time so overlapping keywords are all seen. */
  #presentKeywords(text: string): Set<string> {
    const present = new Set<string>()
    const pattern = this.#keywordPattern
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const keyword = match[0].toLowerCase()
      if (!present.has(keyword)) {
        present.add(keyword)
        for (const inner of this.#contained.get(keyword) ?? []) present.add(inner)
      }
      pattern.lastIndex = match.index + 1
    }
    return present
  }

  #runRule(rule: SecretRule, text: string, out: Detection[]): void {
    const pattern = rule.pattern
    pattern.lastIndex = 0
    // Rules without a vendor shape fire on words, headers and assignments everywhere; their findings per text are capped (see README).
    let left = rule.priority < PRIORITY.provider ? MAX_HEURISTIC_FINDINGS : Number.POSITIVE_INFINITY
    for (let match = pattern.exec(text); match && left > 0; match = pattern.exec(text)) {
      if (match[0].length === 0) pattern.lastIndex++
      const span = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length]
      const [start, end] = trimQuotes(text, span[0], span[1])
      if (end <= start) continue
      const secret = text.slice(start, end)
      if (rule.placeholders !== 'none' && isPlaceholder(secret, rule.placeholders)) continue
      if (rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) continue
      if (this.#allowList.size && this.#allowList.allows(secret)) continue
      const verdict = rule.validate ? rule.validate(secret, match, this.#ctx) : { score: rule.score }
      if (!verdict || verdict.score < this.#minScore) continue
      out.push({
        kind: rule.kind,
        rule: rule.id,
        start,
        end,
        score: Math.round(verdict.score * 100) / 100,
        level: rule.level ?? SECRET_KINDS[rule.kind].level,
        priority: rule.priority,
        ...(verdict.detail ? { detail: verdict.detail } : {}),
      })
      left--
    }
  }
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Drops a surrounding pair of quotes (also JSON-escaped ones) from a span. */
function trimQuotes(text: string, start: number, end: number): [number, number] {
  const first = text[start]
  if (end - start >= 2 && (first === '"' || first === "'" || first === '`') && text[end - 1] === first) {
    return [start + 1, end - 1]
  }
  if (end - start >= 4 && first === '\\' && text[start + 1] === '"' && text.slice(end - 2, end) === '\\"') {
    return [start + 2, end - 2]
  }
  return [start, end]
}

/**
 * When findings overlap, the most specific rule wins (priority, then score,
 * then length). A weaker finding survives only where it covers text the
 * stronger ones do not, so that redaction never leaves part of a secret.
 * Findings are first cut into clusters of mutually overlapping ones (one sort
 * and a sweep), so the pairwise work is only ever within a cluster.
 */
export function resolveOverlaps(found: Detection[]): Detection[] {
  if (found.length < 2) return found
  const byStart = [...found].sort((a, b) => a.start - b.start || b.end - a.end)
  const kept: Detection[] = []
  let cluster: Detection[] = []
  let clusterEnd = -1
  for (const d of byStart) {
    if (d.start >= clusterEnd && cluster.length) {
      resolveCluster(cluster, kept)
      cluster = []
    }
    cluster.push(d)
    clusterEnd = Math.max(clusterEnd, d.end)
  }
  resolveCluster(cluster, kept)
  return kept.sort((a, b) => a.start - b.start || b.end - a.end)
}

/** Ranks one cluster and keeps each finding that reaches past the union of the stronger ones kept so far. */
function resolveCluster(cluster: Detection[], kept: Detection[]): void {
  if (cluster.length === 1) {
    kept.push(cluster[0])
    return
  }
  const ranked = cluster.sort(
    (a, b) => b.priority - a.priority || b.score - a.score || b.end - b.start - (a.end - a.start),
  )
  // Disjoint, sorted [start, end) pairs covered by the findings kept from this cluster.
  const covered: number[] = []
  for (const candidate of ranked) {
    if (isCovered(covered, candidate.start, candidate.end)) continue
    kept.push(candidate)
    addCovered(covered, candidate.start, candidate.end)
  }
}

/** Index of the first pair whose end is after `at`. */
function firstEndingAfter(covered: readonly number[], at: number): number {
  let lo = 0
  let hi = covered.length / 2
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (covered[2 * mid + 1] > at) hi = mid
    else lo = mid + 1
  }
  return lo
}

function isCovered(covered: readonly number[], start: number, end: number): boolean {
  const i = firstEndingAfter(covered, start)
  return 2 * i < covered.length && covered[2 * i] <= start && covered[2 * i + 1] >= end
}

function addCovered(covered: number[], start: number, end: number): void {
  const i = firstEndingAfter(covered, start - 1)
  let from = start
  let to = end
  let j = i
  while (2 * j < covered.length && covered[2 * j] <= to) {
    from = Math.min(from, covered[2 * j])
    to = Math.max(to, covered[2 * j + 1])
    j++
  }
  covered.splice(2 * i, 2 * (j - i), from, to)
}
