import type { ClassificationLevel } from '@gov/core'
import type { AllowList } from './allow-list.js'
import { shannonEntropy } from './entropy.js'
import { SECRET_KINDS, type SecretKind } from './kinds.js'
import { isPlaceholder } from './placeholder.js'
import type { RuleContext, SecretRule } from './rule.js'

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
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
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
 */
export function resolveOverlaps(found: Detection[]): Detection[] {
  if (found.length < 2) return found
  const ranked = [...found].sort(
    (a, b) => b.priority - a.priority || b.score - a.score || b.end - b.start - (a.end - a.start),
  )
  const kept: Detection[] = []
  for (const candidate of ranked) {
    const overlapping = kept.filter((k) => k.start < candidate.end && candidate.start < k.end)
    if (overlapping.length === 0) {
      kept.push(candidate)
      continue
    }
    const coveredFrom = Math.min(...overlapping.map((k) => k.start))
    const coveredTo = Math.max(...overlapping.map((k) => k.end))
    if (candidate.start < coveredFrom || candidate.end > coveredTo) kept.push(candidate)
  }
  return kept.sort((a, b) => a.start - b.start || b.end - a.end)
}
