import type { CaseMode } from '../case-mode.js'
import { codeUnits } from '../code-units.js'
import type { Detection } from '../pii-types.js'
import { readTextFacts } from '../text-facts.js'
import { codeTokens } from './code-regions.js'
import type { Gazetteer } from './gazetteer.js'
import {
  ARTICLE,
  CITY,
  COMMON,
  COUNTRY,
  FIRST,
  flagsOfWord,
  LAST,
  type Lexicon,
  LOCATION_CUE,
  lexiconOf,
  ORG_CUE_AFTER,
  ORG_CUE_BEFORE,
  ORG_HEAD,
  ORG_SUFFIX,
  PARTICLE,
  PERSON_CUE,
  PLACE,
  REGION,
  TITLE,
} from './lexicon.js'
import {
  ABBREVIATIONS,
  findHandles,
  isEveryday,
  isTechnology,
  tagWithModel,
  withHandles,
} from './model-tagger.js'
import { withoutNonNames, withoutVietnameseWords } from './not-names.js'
import { withRefusalEvidence } from './refusal-evidence.js'
import { isNameGap, type Token, tokenize } from './tokenize.js'

const CONNECTOR = /^ (?:&|and|und|et|y|of|for|of the) $/i
const MAX_RUN = 6

/** Tags people, places and organisations with gazetteers, capitalisation and cue words. */
class EntityTagger {
  readonly #g: Gazetteer
  readonly #lexicon: Lexicon
  readonly #text: string
  readonly #units: Uint16Array
  readonly #tokens: Token[]
  readonly #mode: CaseMode
  readonly out: Detection[] = []

  constructor(text: string, units: Uint16Array, gazetteer: Gazetteer, mode: CaseMode, tokens?: Token[]) {
    this.#g = gazetteer
    this.#lexicon = lexiconOf(gazetteer)
    this.#text = text
    this.#units = units
    this.#tokens = tokens ?? tokenize(text, units)
    this.#mode = mode
  }

  /** Lexicon flags of the token's word, looked up once per token. */
  #flags(t: Token): number {
    if (t.flags < 0) t.flags = this.#lexicon.get(t.key) ?? 0
    return t.flags
  }
  #is(t: Token, flag: number): boolean {
    return (this.#flags(t) & flag) !== 0
  }
  #common(t: Token): boolean {
    return this.#is(t, COMMON)
  }
  #first(t: Token): boolean {
    return this.#is(t, FIRST)
  }
  #last(t: Token): boolean {
    return this.#is(t, LAST)
  }

  #candidate(t: Token): boolean {
    if (t.codeLike) return false
    if (this.#mode === 'normal') return t.cap
    if (this.#is(t, TITLE)) return true
    if (this.#is(t, COMMON | PARTICLE)) return false
    return this.#is(t, FIRST | LAST | PLACE | ORG_SUFFIX)
  }

  /** True when exactly one space separates the two tokens. */
  #spaced(a: Token, b: Token): boolean {
    return b.start - a.end === 1 && this.#units[a.end] === 32
  }

  #gap(a: Token, b: Token): string {
    return this.#text.slice(a.end, b.start)
  }

  run(): Detection[] {
    const tokens = this.#tokens
    let i = 0
    while (i < tokens.length) {
      if (!this.#candidate(tokens[i])) {
        i++
        continue
      }
      let j = this.#extend(i)
      // "H. J. Wilson & Company", "University of Oslo": join across a connector when the result is an organisation.
      while (j + 1 < tokens.length) {
        const connector = this.#text.slice(tokens[j].end, tokens[j + 1].start)
        const viaWord =
          j + 2 < tokens.length && CONNECTOR.test(`${connector}${tokens[j + 1].key} `) && !tokens[j + 1].cap
        const gapText = viaWord
          ? `${connector}${tokens[j + 1].key}${this.#gap(tokens[j + 1], tokens[j + 2])}`
          : connector
        const next = viaWord ? j + 2 : j + 1
        if (!CONNECTOR.test(gapText) || !this.#candidate(tokens[next])) break
        const k = this.#extend(next)
        if (this.#is(tokens[k], ORG_SUFFIX) || this.#is(tokens[i], ORG_HEAD)) j = k
        else break
      }
      this.#classify(i, j)
      i = j + 1
    }
    this.#boostLists()
    return this.out
  }

  /** Last index of the run of name-like words that starts at `i`. */
  #extend(i: number): number {
    const tokens = this.#tokens
    let j = i
    // Names and places are short; a longer run is a heading or a list, and is cut into pieces.
    while (j + 1 < tokens.length && j - i < MAX_RUN) {
      if (isNameGap(this.#units, tokens[j], tokens[j + 1]) && this.#candidate(tokens[j + 1])) {
        j++
        continue
      }
      // In lower-case text an unknown word right after a first name is most likely its surname.
      if (
        this.#mode !== 'normal' &&
        this.#spaced(tokens[j], tokens[j + 1]) &&
        this.#first(tokens[j]) &&
        !this.#common(tokens[j + 1]) &&
        !this.#is(tokens[j + 1], PARTICLE) &&
        (j === i || !this.#first(tokens[j - 1]))
      ) {
        j++
        continue
      }
      // Lower-case particles inside a name: "Donald van der Voet".
      let k = j + 1
      while (k < tokens.length && k - j <= 3 && this.#is(tokens[k], PARTICLE) && !tokens[k].cap) {
        if (!this.#spaced(tokens[k - 1], tokens[k])) break
        k++
      }
      if (
        k > j + 1 &&
        k < tokens.length &&
        this.#spaced(tokens[k - 1], tokens[k]) &&
        this.#candidate(tokens[k])
      ) {
        j = k
        continue
      }
      break
    }
    return j
  }

  #emit(type: Detection['type'], from: number, to: number, score: number): void {
    const last = this.#tokens[to]
    // Keep the abbreviation dot of "Ltd." / "Inc." / "Jr." in the span.
    const dot = last.dot && type === 'ORGANIZATION' && ABBREVIATIONS.has(last.key) ? 1 : 0
    this.out.push({
      type,
      start: this.#tokens[from].start,
      end: last.end + dot,
      score: Math.min(score, 0.99),
    })
  }

  #classify(from: number, to: number): void {
    const t = this.#tokens
    let hasTitle = false
    while (from <= to && this.#is(t[from], TITLE) && (t[from].dot || from < to)) {
      hasTitle = true
      from++
    }
    // "The European Central Bank": an organisation name keeps its everyday words, only articles go.
    if (to > from && this.#is(t[to], ORG_SUFFIX)) {
      while (from < to && this.#is(t[from], ARTICLE)) from++
      if (to > from) {
        this.#emit('ORGANIZATION', from, to, 0.85)
        return
      }
    }
    // A capitalised everyday word opening a sentence is not part of the name after it ("Ask Randy Shaw"),
    // unless the words together name a place ("South Korea").
    const place = this.#placeAt(from, to)
    while (
      from < to &&
      this.#common(t[from]) &&
      !this.#is(t[from], ORG_HEAD) &&
      !(place && place.end > from)
    ) {
      if (this.#first(t[from]) && this.#last(t[from + 1])) break
      from++
    }
    // So is an unknown sentence opener before a first name ("Звоните Александр Иванов").
    if (
      from < to &&
      t[from].sentenceStart &&
      !this.#first(t[from]) &&
      !this.#last(t[from]) &&
      this.#first(t[from + 1])
    )
      from++
    while (to > from && this.#common(t[to]) && !this.#is(t[to], ORG_SUFFIX) && !this.#last(t[to])) to--
    if (from > to) return
    if (to === from && this.#common(t[from]) && !hasTitle) return

    if (to > from && (this.#is(t[to], ORG_SUFFIX) || this.#is(t[from], ORG_HEAD))) {
      this.#emit('ORGANIZATION', from, to, 0.85)
      return
    }
    this.#classifySegments(from, to, hasTitle)
  }

  /** Splits a run into places and the rest, and scores the rest as a person or organisation. */
  #classifySegments(from: number, to: number, hasTitle: boolean): void {
    let restStart = from
    let p = from
    while (p <= to && !hasTitle) {
      const place = this.#placeAt(p, to)
      if (!place) {
        p++
        continue
      }
      if (restStart < p) this.#classifyName(restStart, p - 1, false)
      this.#emit('LOCATION', p, place.end, place.score)
      p = place.end + 1
      restStart = p
    }
    if (restStart <= to) this.#classifyName(restStart, to, hasTitle)
  }

  /** The longest place name starting at token `p` (within the run), if it beats reading the words as a name. */
  #placeAt(p: number, to: number): { end: number; score: number } | undefined {
    const t = this.#tokens
    // A run that was all title ("… Mr.") has nothing left to read.
    if (p > to) return undefined
    const max = Math.min(to, p + this.#g.maxPlaceWords - 1)
    if (!t[p].cap && this.#is(t[p], PARTICLE)) return undefined
    for (let e = max; e >= p; e--) {
      const flags =
        e === p
          ? this.#flags(t[p])
          : (this.#lexicon.get(this.#text.slice(t[p].start, t[e].end).toLowerCase().replace(/\s+/g, ' ')) ??
            0)
      let score = 0
      if (flags & COUNTRY) score = 0.85
      else if (flags & REGION) score = 0.75
      else if (flags & CITY) score = 0.7
      if (!score) continue
      const single = e === p
      const nameLike = single && (this.#first(t[p]) || this.#last(t[p]) || this.#common(t[p]))
      // "Jordan Smith" is a person, not a country and a surname.
      if (nameLike && p < to && (this.#last(t[p + 1]) || this.#first(t[p]))) return undefined
      if (nameLike) score -= 0.3
      if (single && t[p].allCaps && t[p].key.length <= 3) score -= 0.3
      const before = p > 0 && this.#spaced(t[p - 1], t[p]) ? t[p - 1] : undefined
      if (p === this.#runStart(p) && before && this.#is(before, LOCATION_CUE)) score += 0.2
      if (score < 0.5) return undefined
      return { end: e, score }
    }
    return undefined
  }

  /** Index of the first token of the run that contains `p` (runs are separated by non-name gaps). */
  #runStart(p: number): number {
    const t = this.#tokens
    while (p > 0 && isNameGap(this.#units, t[p - 1], t[p]) && this.#candidate(t[p - 1])) p--
    return p
  }

  #classifyName(from: number, to: number, hasTitle: boolean): void {
    const t = this.#tokens
    const n = to - from + 1
    // Cue words count only right before or after the name, separated by a space.
    const before = from > 0 && this.#spaced(t[from - 1], t[from]) ? t[from - 1] : undefined
    const after = to + 1 < t.length && this.#spaced(t[to], t[to + 1]) ? t[to + 1] : undefined
    if (n === 1 && t[from].key.includes('-')) {
      const parts = t[from].key.split('-')
      if (
        parts.length === 2 &&
        !this.#g.firstNames.has(parts[0]) &&
        parts.every((x) => this.#g.lastNames.has(x))
      ) {
        this.#emit('ORGANIZATION', from, to, 0.6)
        return
      }
    }
    let evidence = hasTitle
    let commonWords = 0
    for (let k = from; k <= to; k++) {
      if (this.#first(t[k]) || this.#last(t[k])) evidence = true
      if (this.#common(t[k])) commonWords++
    }
    let points = hasTitle ? 2 : 0
    for (let k = from; k <= to; k++) {
      const tok = t[k]
      const common = this.#common(tok)
      const first = this.#first(tok)
      const last = this.#last(tok)
      if (tok.allCaps && tok.key.length <= 4 && !first && !last) points -= 1
      else if (k === from)
        points += first ? (common ? 1 : 2) : last ? (common ? 0.25 : 1) : common ? -0.5 : 0.5
      else points += last ? 1.5 : first ? 1 : common ? -1 : 0.75
    }
    if (before && this.#is(before, PERSON_CUE)) points += 0.75
    if (t[to].possessive) points += 0.5
    if (this.#text[t[to].end] === ':' && t[from].sentenceStart) points += 0.5
    const orgCue =
      (before && this.#is(before, ORG_CUE_BEFORE)) ||
      (from > 1 &&
        this.#is(t[from - 2], ORG_CUE_BEFORE) &&
        before &&
        (before.key === 'at' || before.key === 'for')) ||
      (after && this.#is(after, ORG_CUE_AFTER))
    if (orgCue && !hasTitle && points < 3) {
      this.#emit('ORGANIZATION', from, to, 0.65)
      return
    }
    if (!evidence) {
      // No known first or last name: "Solar Census" is a business, "from Arona" a place, "Kaypa" unknown.
      if (
        before &&
        this.#is(before, LOCATION_CUE) &&
        before.key !== 'at' &&
        before.key !== 'of' &&
        !t[from].allCaps
      ) {
        this.#emit('LOCATION', from, to, 0.6)
        return
      }
      // "a year at Solarlist", "recorded for Billguard": an unknown coined name after these is a business.
      if (before && (before.key === 'at' || before.key === 'for') && !t[from].sentenceStart) {
        this.#emit('ORGANIZATION', from, to, 0.55)
        return
      }
      if (n >= 2 && commonWords > 0) {
        this.#emit('ORGANIZATION', from, to, 0.55)
        return
      }
      if (!(before && this.#is(before, PERSON_CUE))) points = Math.min(points, 1.5)
    }
    const score = points >= 3.5 ? 0.9 : points >= 2.5 ? 0.8 : points >= 1.75 ? 0.65 : points >= 1 ? 0.45 : 0
    if (score > 0) this.#emit('PERSON', from, to, score)
  }

  /** "Kovalev, Lee and Phillips": weak single names listed next to each other back each other up. */
  #boostLists(): void {
    const order = this.out
      .map((_, index) => index)
      .filter((index) => this.out[index].type === 'PERSON')
      .sort((a, b) => this.out[a].start - this.out[b].start)
    for (let k = 1; k < order.length; k++) {
      const a = this.out[order[k - 1]]
      const b = this.out[order[k]]
      const gap = this.#text.slice(a.end, b.start)
      if (!/^(?:, ?| and | & |, and )$/.test(gap) || a.score + b.score < 1.1) continue
      const score = Math.max(0.65, a.score, b.score)
      this.out[order[k - 1]] = { ...a, score }
      this.out[order[k]] = { ...b, score }
    }
  }
}

/** Lowest score of a gazetteer-rule finding that is trusted next to the model (full names, suffixed firms, titles). */
const STRONG_RULE = 0.8

/**
 * Finds PERSON, LOCATION and ORGANIZATION names in `text`: with the trained
 * model wherever the text has capitals in ordinary use (prompts with few
 * capitals included), with the gazetteer rules in all-lower or all-upper text,
 * where capitals, the model's main signal, say nothing; there a lone known
 * first name ("grace", "guru") is too weak and only full names count.
 */
export function tagEntities(
  text: string,
  gazetteer: Gazetteer,
  units: Uint16Array = codeUnits(text),
  mode: CaseMode = readTextFacts(units).caseMode,
): Detection[] {
  if (!gazetteer.model) return new EntityTagger(text, units, gazetteer, mode).run()
  const tokens = tokenize(text, units)
  if (mode === 'upper' || (mode === 'lower' && !hasCapital(units))) {
    const strong = withoutVietnameseWords(
      text,
      units,
      tokens,
      new EntityTagger(text, units, gazetteer, mode, tokens).run().filter((d) => d.score >= STRONG_RULE),
    )
    if (strong.length > 0) {
      const lexicon = lexiconOf(gazetteer)
      withRefusalEvidence(
        text,
        units,
        tokens,
        strong,
        (key) => flagsOfWord(lexicon, key),
        (d) => ({ from: tokenAt(tokens, d.start), to: tokenAt(tokens, d.end - 1, true) }),
      )
    }
    return text.includes('@')
      ? withHandles(strong, findHandles(text, tokens, codeTokens(text, tokens)))
      : strong
  }
  const skip = codeTokens(text, tokens)
  const found = tagWithModel(text, units, gazetteer, gazetteer.model, tokens, skip)
  // The rules know structures the model saw too rarely: "Smith Ltd.", "Mr. Dresdner", "Donald van der Voet".
  const lexicon = lexiconOf(gazetteer)
  const flagsOf = (t: Token) => flagsOfWord(lexicon, t.key)
  const rules = new EntityTagger(text, units, gazetteer, 'normal', tokens).run().filter((d) => {
    const from = tokenAt(tokens, d.start)
    const to = tokenAt(tokens, d.end - 1, true)
    return !isTechnology(tokens, from, to, flagsOf) && !isEveryday(tokens, from, to, flagsOf)
  })
  const keyFlags = (key: string) => flagsOfWord(lexicon, key)
  const spanOf = (d: Detection) => ({
    from: tokenAt(tokens, d.start),
    to: tokenAt(tokens, d.end - 1, true),
  })
  const merged = withoutNonNames(
    text,
    units,
    tokens,
    mergeRules(found, rules, tokens, skip),
    keyFlags,
    spanOf,
  )
  return withRefusalEvidence(
    text,
    units,
    tokens,
    withHandles(merged, findHandles(text, tokens, skip)),
    keyFlags,
    spanOf,
  )
}

/** Index of the token that starts at or after `offset`, or with `last`, the last token that starts at or before it. */
function tokenAt(tokens: readonly Token[], offset: number, last = false): number {
  let lo = 0
  let hi = tokens.length - 1
  while (lo < hi) {
    const mid = (lo + hi + (last ? 1 : 0)) >> 1
    if (last ? tokens[mid].start <= offset : tokens[mid].start < offset) lo = last ? mid : mid + 1
    else hi = last ? mid - 1 : mid
  }
  return lo
}

/**
 * Adds the strong rule findings the model missed; one replaces a single model
 * finding it overlaps. Both lists are in text order, so one sweep does it.
 */
function mergeRules(
  found: readonly Detection[],
  rules: readonly Detection[],
  tokens: readonly Token[],
  skip: Uint8Array | undefined,
): Detection[] {
  const model = [...found].sort((a, b) => a.start - b.start)
  const replaced = new Uint8Array(model.length)
  const added: Detection[] = []
  let m = 0
  for (const rule of [...rules].sort((a, b) => a.start - b.start)) {
    if (rule.score < STRONG_RULE || (skip && inCode(rule, tokens, skip))) continue
    while (m < model.length && model[m].end <= rule.start) m++
    let k = m
    while (k < model.length && model[k].start < rule.end) k++
    // Only where the model read one name there: a rule run that joins two of the model's names is wrong.
    if (k === m) added.push(rule)
    else if (k === m + 1 && !replaced[m]) {
      replaced[m] = 1
      added.push(rule)
    }
  }
  return model.filter((_, i) => !replaced[i]).concat(added)
}

function inCode(d: Detection, tokens: readonly Token[], skip: Uint8Array): boolean {
  return skip[tokenAt(tokens, d.start)] === 1
}

/** True when some word starts with an upper-case ASCII letter after a space or at the start. */
function hasCapital(units: Uint16Array): boolean {
  for (let i = 0; i < units.length; i++) {
    const c = units[i]
    if (c >= 65 && c <= 90 && (i === 0 || units[i - 1] === 32 || units[i - 1] === 10)) return true
  }
  return false
}
