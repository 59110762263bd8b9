import type { ClassificationLevel } from '@gov/core'
import type { AllowList } from './allow-list.js'
import { shannonEntropy } from './entropy.js'
import { KeywordAutomaton } from './keyword-automaton.js'
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
 * Runs the rule table over a text. One pass of a keyword automaton finds which
 * literal keywords occur (case-insensitive, ASCII); only rules with a keyword
 * present run their own pattern, so a typical prompt runs a handful of ~220
 * rules. A rule with a `run` condition runs only from the starts of long
 * enough runs of its characters (the lone-token rules on prose: usually none).
 * Stateless between calls (the marks below are reset by a per-call stamp);
 * cache results outside.
 */
export class SecretScanner {
  readonly #rules: readonly SecretRule[]
  readonly #automaton: KeywordAutomaton
  /** For each keyword id, the indices of the rules it lets run. */
  readonly #rulesOfKeyword: readonly (readonly number[])[]
  readonly #ctx: RuleContext
  readonly #allowList: AllowList
  readonly #minScore: number
  /** A rule with no keywords (the lone high-entropy token) runs on every text. */
  readonly #hasKeywordlessRule: boolean
  /** Per-call marks: `#seen[keyword] === #stamp` when the keyword occurs, `#ruleOn[rule] === #stamp` when the rule runs. */
  readonly #seen: Uint32Array
  readonly #found: Uint32Array
  readonly #ruleOn: Uint32Array
  #stamp = 0
  /** Character classes of the rules' `run` conditions, and each rule's index into them (-1: none). */
  readonly #runClasses: RunClass[]
  readonly #runClassOf: Int32Array

  constructor(options: ScannerOptions) {
    this.#rules = options.rules.filter((rule) => options.kinds[rule.kind] !== false)
    const keywords = [...new Set(this.#rules.flatMap((rule) => rule.keywords))].sort()
    this.#automaton = KeywordAutomaton.for(keywords)
    const idOf = new Map(keywords.map((k, i) => [k, i]))
    const rulesOfKeyword: number[][] = keywords.map(() => [])
    this.#rules.forEach((rule, index) => {
      for (const k of new Set(rule.keywords)) rulesOfKeyword[idOf.get(k) as number].push(index)
    })
    this.#rulesOfKeyword = rulesOfKeyword
    this.#seen = new Uint32Array(keywords.length)
    this.#found = new Uint32Array(keywords.length)
    this.#ruleOn = new Uint32Array(this.#rules.length)
    this.#ctx = { entropyThreshold: options.entropyThreshold }
    this.#allowList = options.allowList
    this.#minScore = options.minScore
    this.#hasKeywordlessRule = this.#rules.some((rule) => rule.keywords.length === 0)
    this.#runClasses = []
    this.#runClassOf = new Int32Array(this.#rules.length).fill(-1)
    this.#rules.forEach((rule, index) => {
      if (!rule.run) return
      let at = this.#runClasses.findIndex((c) => c.chars === rule.run?.chars)
      if (at < 0) at = this.#runClasses.push(new RunClass(rule.run.chars)) - 1
      const runClass = this.#runClasses[at]
      runClass.min = Math.min(runClass.min, rule.run.min)
      this.#runClassOf[index] = at
    })
  }

  /** Number of active rules (after `kinds`). */
  get ruleCount(): number {
    return this.#rules.length
  }

  /** Every secret in `text`, non-overlapping where rules agree, sorted by position. */
  scan(text: string): Detection[] {
    if (text.length < 8) return []
    const stamp = this.#nextStamp()
    const present = this.#automaton.mark(text, stamp, this.#seen, this.#found)
    if (present === 0 && !this.#hasKeywordlessRule) return []
    for (let i = 0; i < present; i++) {
      for (const rule of this.#rulesOfKeyword[this.#found[i]]) this.#ruleOn[rule] = stamp
    }
    const found: Detection[] = []
    const rules = this.#rules
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index]
      if (rule.keywords.length > 0 && this.#ruleOn[index] !== stamp) continue
      const runClass = this.#runClassOf[index]
      if (runClass < 0) this.#runRule(rule, text, found)
      else this.#runRuleInRuns(rule, this.#runClasses[runClass].runsOf(text, stamp), text, found)
    }
    return resolveOverlaps(found)
  }

  /** A new call's stamp; on wrap-around every mark is cleared. */
  #nextStamp(): number {
    if (this.#stamp === 0xffffffff) {
      this.#stamp = 0
      this.#seen.fill(0)
      this.#ruleOn.fill(0)
      for (const runClass of this.#runClasses) runClass.reset()
    }
    return ++this.#stamp
  }

  /** Rules without vendor shape have their findings per text capped (see README). */
  #budget(rule: SecretRule): number {
    return rule.priority < PRIORITY.provider ? MAX_HEURISTIC_FINDINGS : Number.POSITIVE_INFINITY
  }

  #runRule(rule: SecretRule, text: string, out: Detection[]): void {
    const pattern = rule.pattern
    pattern.lastIndex = 0
    let left = this.#budget(rule)
    for (let match = pattern.exec(text); match && left > 0; match = pattern.exec(text)) {
      if (match[0].length === 0) pattern.lastIndex++
      if (this.#judge(rule, text, match, out)) left--
    }
  }

  /**
   * The same matches as {@link #runRule} where a finding is possible: every
   * match of the rule lies inside one run of its characters and only matches
   * in runs of `run.min` or more can be reported, so the pattern starts at the
   * first such run and, when a match lands in a shorter run, jumps to the next
   * long one (a match there is the one a full scan would find next).
   */
  #runRuleInRuns(rule: SecretRule, runs: Runs, text: string, out: Detection[]): void {
    const min = rule.run?.min ?? 0
    const { starts, ends, count } = runs
    let run = 0
    while (run < count && ends[run] - starts[run] < min) run++
    if (run === count) return
    const pattern = rule.pattern
    pattern.lastIndex = starts[run]
    let left = this.#budget(rule)
    for (let match = pattern.exec(text); match && left > 0; match = pattern.exec(text)) {
      if (match[0].length === 0) pattern.lastIndex++
      while (run < count && (ends[run] <= match.index || ends[run] - starts[run] < min)) run++
      if (run === count) return
      if (match.index < starts[run]) {
        // In a run too short for a finding: skip to the next long run.
        pattern.lastIndex = Math.max(pattern.lastIndex, starts[run])
        continue
      }
      if (this.#judge(rule, text, match, out)) left--
    }
  }

  /** Checks one match (placeholders, entropy, allow-list, the rule's validator); pushes and returns true when it is a finding. */
  #judge(rule: SecretRule, text: string, match: RegExpExecArray, out: Detection[]): boolean {
    const span = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length]
    const [start, end] = trimQuotes(text, span[0], span[1])
    if (end <= start) return false
    const secret = text.slice(start, end)
    if (rule.placeholders !== 'none' && isPlaceholder(secret, rule.placeholders)) return false
    if (rule.minEntropy !== undefined && shannonEntropy(secret) < rule.minEntropy) return false
    if (this.#allowList.size && this.#allowList.allows(secret)) return false
    const verdict = rule.validate ? rule.validate(secret, match, this.#ctx) : { score: rule.score }
    if (!verdict || verdict.score < this.#minScore) return false
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
    return true
  }
}

/** Maximal runs of a character class in one text: `[starts[i], ends[i])`, in order. Views of reused buffers. */
interface Runs {
  readonly starts: Int32Array
  readonly ends: Int32Array
  readonly count: number
}

/** One `run` character class and its runs of at least `min` characters in the text of the current call. */
class RunClass {
  readonly chars: string
  min = Number.POSITIVE_INFINITY
  /** 1 for the ASCII code units of the class. */
  readonly #member = new Uint8Array(128)
  #starts = new Int32Array(16)
  #ends = new Int32Array(16)
  #count = 0
  #stamp = 0

  constructor(chars: string) {
    this.chars = chars
    const test = new RegExp(`^[${chars}]$`)
    for (let code = 0; code < 128; code++) this.#member[code] = test.test(String.fromCharCode(code)) ? 1 : 0
  }

  reset(): void {
    this.#stamp = 0
  }

  /**
   * The runs of `text` at least `min` long, found once per call (`stamp`) by
   * one loop over the text (a regex for long runs retries inside every word:
   * about twice the cost on prose).
   */
  runsOf(text: string, stamp: number): Runs {
    if (this.#stamp !== stamp) {
      this.#stamp = stamp
      this.#count = 0
      const member = this.#member
      const min = this.min
      let start = 0
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i)
        if (code < 128 && member[code] === 1) continue
        if (i - start >= min) this.#push(start, i)
        start = i + 1
      }
      if (text.length - start >= min) this.#push(start, text.length)
    }
    return { starts: this.#starts, ends: this.#ends, count: this.#count }
  }

  #push(start: number, end: number): void {
    if (this.#count === this.#starts.length) {
      const starts = new Int32Array(this.#count * 2)
      starts.set(this.#starts)
      this.#starts = starts
      const ends = new Int32Array(this.#count * 2)
      ends.set(this.#ends)
      this.#ends = ends
    }
    this.#starts[this.#count] = start
    this.#ends[this.#count++] = end
  }
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
