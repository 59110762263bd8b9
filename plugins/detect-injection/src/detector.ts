/**
 * The detector: normalise a text, run the rules on it and on anything hidden
 * or encoded in it, score it with the linear model window by window, and
 * combine both into one score in 0..1. Pure and synchronous; the step caches
 * its results per text.
 */

import { contextOverlap } from './context-fit.js'
import {
  type DecodeBudget,
  decodeBudget,
  findPayloads,
  mayHavePayloads,
  type Payload,
} from './decode-payloads.js'
import { foldLeet, LEET_STEMS } from './leetspeak.js'
import type { Combiner, LinearModel } from './linear-model.js'
import {
  type Channel,
  findNeedles,
  lowerCaseInPlace,
  matchRules,
  type RuleHit,
  sumRuleWeights,
} from './match-rules.js'
import { type NormalizedText, normalizeText, originalSpan } from './normalize.js'
import { ALL_RULES, type Rule } from './rules/index.js'
import { scanHints, type TextHints } from './scan-hints.js'
import { splitWindows } from './segment.js'
import { warmUp } from './warm-up.js'

/** What the detector concluded about one text. */
export interface Analysis {
  /** Probability-like score, 0..1. */
  readonly score: number
  /** Ids of the strongest signals, strongest first (rule ids, `obfuscation.*`, `model.ngram`); never text. */
  readonly signals: readonly string[]
  /** Where the strongest signal sits in the original text. */
  readonly span: { readonly start: number; readonly end: number } | undefined
  /** Sum of rule weights (per-category maxima). */
  readonly ruleWeight: number
  /** The linear model's logit, highest over windows. */
  readonly modelLogit: number
}

/** Options of {@link InjectionDetector.analyze}. */
export interface AnalyzeOptions {
  /** Decode base64/hex/ROT13/… payloads and score them. Default true. */
  readonly decodePayloads?: boolean
}

interface Located extends RuleHit {
  /** True when start/end are already offsets in the original text. */
  readonly original?: boolean
}

const MAX_SIGNALS = 5
/** Most layers of encoding unwrapped (base64 inside base64 is two). */
export const MAX_LAYERS = 3
const OPEN_QUOTE = /["'“‘«`„]/
const CLOSE_QUOTE = /["'”’»`“]/
const QUOTED_EXAMPLE_MAX = 1000
const META_CONTEXT =
  /\b(?:phrases?|means?|meaning|examples?|such as|attacks?|injections?|jailbreaks?|security|paper|research|detect\w*|classif\w*|article|blog|patterns?|regex|filter\w*|block\w*)\b/i
const OFF_TOPIC = 0.2
const OFF_TOPIC_BONUS = 0.75
const ON_TOPIC = 0.5
const ON_TOPIC_PENALTY = 1
const LEET_STEMS_ALL = new RegExp(LEET_STEMS, 'g')
const SPACED_TRIGGER =
  /ignor|disregard|forget|instruction|systemprompt|prompt|jailbreak|password|saythat|hate|pwned|previous|override|secret/i

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z))
}

/** Rules plus model; one instance per step instance, shared by every call. */
export class InjectionDetector {
  readonly #model: LinearModel
  readonly #rules: readonly Rule[]
  #warm: Promise<void> | undefined

  constructor(model: LinearModel, rules: readonly Rule[] = ALL_RULES) {
    this.#model = model
    this.#rules = rules
  }

  /** The linear model (worker threads get a copy of it). */
  get model(): LinearModel {
    return this.#model
  }

  /**
   * Compile every pattern and optimise the hot paths before the first call
   * instead of during it (see warm-up.ts). Runs once per detector and yields
   * to the event loop as it goes; about 0.1 s.
   */
  warmUp(): Promise<void> {
    this.#warm ??= warmUp(this.#rules, (text, channel) => this.analyze(text, channel))
    return this.#warm
  }

  /** Score one text as it would arrive on `channel`. */
  analyze(text: string, channel: Channel, options: AnalyzeOptions = {}): Analysis {
    const normalized = normalizeText(text)
    const t = normalized.text
    const lower = lowerCaseInPlace(t)
    // One automaton pass finds the rules' needles and the decoder's encoded words.
    const needles = findNeedles(lower, this.#rules)
    const matched = matchRules(t, channel, this.#rules, lower, needles)
    // Text left as it was is printable ASCII: its lower case is `lower`, and context overlap need not copy it.
    const hits: Located[] = weighContext(t, matched, normalized.offsets === undefined ? lower : undefined)
    discountQuotedExamples(t, hits)
    const hints = scanHints(t)
    if (hints.leet) this.#addLeetHits(t, channel, hits)
    if (options.decodePayloads !== false && mayHavePayloads(t, needles.encoded, hints))
      this.#addPayloadHits(t, lower, needles.encoded, hints, hits)
    addHiddenTextHits(normalized, hits, (hidden) => this.#scoreDecoded(hidden).ruleWeight)

    let modelLogit = Number.NEGATIVE_INFINITY
    let window = { start: 0, end: t.length }
    for (const w of splitWindows(t)) {
      const logit = this.#model.logit(w.text, channel)
      if (logit > modelLogit) {
        modelLogit = logit
        window = w
      }
    }
    const ruleWeight = sumRuleWeights(hits)
    const c = this.#model.combine[channel]
    const z = combine(c, modelLogit, ruleWeight)
    return {
      score: sigmoid(z),
      signals: signalsOf(hits, c.alpha * modelLogit),
      span: spanOf(normalized, hits, window),
      ruleWeight,
      modelLogit,
    }
  }

  /**
   * Leetspeak is re-scanned only when folding it reveals a word attacks use
   * that the text did not show before (and only called when the text's hints
   * say folding could), so e-mail addresses and prices cost nothing.
   */
  #addLeetHits(text: string, channel: Channel, hits: Located[]): void {
    const folded = lowerCaseInPlace(foldLeet(text))
    const stems = folded.match(LEET_STEMS_ALL)
    if (!stems) return
    const lower = text.toLowerCase()
    if (stems.every((stem) => lower.includes(stem))) return
    const seen = new Set(hits.map((h) => h.id))
    let added = false
    for (const hit of matchRules(folded, channel, this.#rules, folded)) {
      if (seen.has(hit.id) || hit.weight <= 0) continue
      hits.push(hit)
      added = true
    }
    if (added)
      hits.push({ id: 'obfuscation.leetspeak', category: 'obfuscation', weight: 1.5, start: 0, end: 0 })
  }

  #addPayloadHits(text: string, lower: string, encoded: Uint8Array, hints: TextHints, hits: Located[]): void {
    const budget = decodeBudget()
    for (const payload of findPayloads(text, { lower, encoded, hints, budget })) {
      let weight = 0
      if (payload.kind === 'spaced') {
        if (SPACED_TRIGGER.test(payload.text)) weight = 3.5
      } else {
        const decoded = this.#scoreLayers(payload, budget)
        // Hiding an instruction in an encoding is itself a signal, so a decoded
        // payload that scores even moderately counts more than the same plain text.
        if (decoded.z > -1) weight = Math.min(6, Math.max(3, decoded.ruleWeight + 1.5))
      }
      if (weight > 0) {
        hits.push({
          id: `obfuscation.${payload.kind}`,
          category: 'obfuscation',
          weight,
          start: payload.start,
          end: payload.end,
        })
      }
    }
  }

  /**
   * Score a decoded payload and what is encoded inside it (base64 of hex of
   * …), at most {@link MAX_LAYERS} layers deep, within the call's decoding
   * budget; the strongest layer counts. A loop over a bounded list, not
   * recursion, so no input can deepen the stack.
   */
  #scoreLayers(payload: Payload, budget: DecodeBudget): { ruleWeight: number; z: number } {
    const unreadable = { ruleWeight: 0, z: Number.NEGATIVE_INFINITY }
    let best = payload.readable ? this.#scoreDecoded(payload.text) : unreadable
    let layer = [payload]
    for (let depth = 2; depth <= MAX_LAYERS && budget.chars > 0; depth++) {
      const next: Payload[] = []
      for (const outer of layer) {
        for (const inner of findPayloads(outer.text, { budget })) {
          if (inner.kind === 'spaced' || inner.kind === 'rot13' || inner.kind === 'reversed') continue
          next.push(inner)
          if (!inner.readable) continue
          const scored = this.#scoreDecoded(inner.text)
          if (scored.z > best.z) best = scored
        }
      }
      if (next.length === 0) break
      layer = next
    }
    return best
  }

  /** Score decoded or hidden text as a direct message, without further decoding. */
  #scoreDecoded(text: string): { ruleWeight: number; z: number } {
    const t = normalizeText(text).text
    const ruleWeight = sumRuleWeights(matchRules(t, 'direct', this.#rules))
    let modelLogit = Number.NEGATIVE_INFINITY
    for (const w of splitWindows(t)) modelLogit = Math.max(modelLogit, this.#model.logit(w.text, 'direct'))
    return { ruleWeight, z: combine(this.#model.combine.direct, modelLogit, ruleWeight) }
  }
}

/**
 * "What does 'ignore all previous instructions' mean?" quotes an attack to ask
 * about it. A strong hit inside quotes, in a text that talks about attacks,
 * gets a negative `meta` hit that cancels most of it.
 */
function discountQuotedExamples(text: string, hits: Located[]): void {
  // Long role-play jailbreaks quote their own slogans ("do anything now"); only
  // short texts about attacks qualify, and only for override and extraction phrases.
  if (text.length > QUOTED_EXAMPLE_MAX) return
  // The quote test first: it looks at a few hits, the context pattern at the whole text.
  const quoted = hits.some(
    (h) =>
      h.weight >= 3 &&
      (h.category === 'override' || h.category === 'extraction') &&
      isQuoted(text, h.start, h.end),
  )
  if (quoted && META_CONTEXT.test(text))
    hits.push({ id: 'meta.quoted_example', category: 'meta', weight: -5.5, start: 0, end: 0 })
}

function isQuoted(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 3), start)
  const after = text.slice(end, end + 40)
  return OPEN_QUOTE.test(before) && CLOSE_QUOTE.test(after)
}

/**
 * Per-segment tool rules count more when the sentence has nothing to do with
 * the document around it, and less when it shares most of its words with it.
 */
function weighContext(text: string, hits: RuleHit[], asciiLower: string | undefined): RuleHit[] {
  // In place (the array is matchRules' own): most texts have no such hit, and then nothing is copied.
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i]
    if (hit.category !== 'tool_instruction' || !hit.segment) continue
    const overlap = contextOverlap(text, hit.segment.start, hit.segment.end, asciiLower)
    if (overlap === undefined) continue
    if (overlap < OFF_TOPIC) hits[i] = { ...hit, weight: hit.weight + OFF_TOPIC_BONUS }
    else if (overlap > ON_TOPIC) hits[i] = { ...hit, weight: Math.max(0.5, hit.weight - ON_TOPIC_PENALTY) }
  }
  return hits
}

function combine(c: Combiner, modelLogit: number, ruleWeight: number): number {
  return c.bias + c.alpha * modelLogit + c.beta * ruleWeight
}

function addHiddenTextHits(
  normalized: NormalizedText,
  hits: Located[],
  ruleWeightOf: (text: string) => number,
): void {
  // Flag emoji (England, Scotland, Wales) legitimately use a few tag characters
  // for a region code; a sentence in tag characters is never legitimate.
  const tag = normalized.tagText
  if (normalized.tagSpan && (tag.length > 8 || /\s/.test(tag))) {
    const weight = Math.max(5, ruleWeightOf(tag) + 1.5)
    hits.push({
      id: 'obfuscation.tag_characters',
      category: 'obfuscation',
      weight,
      ...normalized.tagSpan,
      original: true,
    })
  }
  if (normalized.selectorSpan && normalized.selectorText.trim().length >= 4) {
    const weight = Math.max(5, ruleWeightOf(normalized.selectorText) + 1.5)
    hits.push({
      id: 'obfuscation.variation_selectors',
      category: 'obfuscation',
      weight,
      ...normalized.selectorSpan,
      original: true,
    })
  }
  if (normalized.splitWordInvisibles >= 2) {
    hits.push({ id: 'obfuscation.zero_width', category: 'obfuscation', weight: 2, start: 0, end: 0 })
  }
  if (normalized.bidiControls >= 1) {
    hits.push({ id: 'obfuscation.bidi_control', category: 'obfuscation', weight: 1.5, start: 0, end: 0 })
  }
  if (normalized.foldedConfusables >= 2) {
    hits.push({ id: 'obfuscation.homoglyphs', category: 'obfuscation', weight: 2, start: 0, end: 0 })
  }
}

function signalsOf(hits: readonly Located[], modelContribution: number): string[] {
  // The hits themselves are ranked (a stable sort keeps their order among equal weights).
  const ranked: { readonly id: string; readonly weight: number }[] = hits.filter((h) => h.weight > 0)
  if (modelContribution > 1) ranked.push({ id: 'model.ngram', weight: modelContribution })
  if (ranked.length > 1) ranked.sort((a, b) => b.weight - a.weight)
  const out: string[] = []
  for (const r of ranked) {
    if (!out.includes(r.id)) out.push(r.id)
    if (out.length === MAX_SIGNALS) break
  }
  return out
}

function spanOf(
  normalized: NormalizedText,
  hits: readonly Located[],
  window: { start: number; end: number },
): { start: number; end: number } {
  let best: Located | undefined
  for (const h of hits) {
    if (h.weight > 0 && h.end > h.start && (!best || h.weight > best.weight)) best = h
  }
  if (best?.original) return { start: best.start, end: best.end }
  if (best) return originalSpan(normalized, best.start, best.end)
  return originalSpan(normalized, window.start, window.end)
}
