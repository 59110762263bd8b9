import { type ClassificationLevel, ErrorCodes, GovError, levelRank } from '@gov/core'
import { AllowList } from './allow-list.js'
import { type Detection, FindingTypes } from './detection.js'
import { findFinancialFigures } from './find-financial-figures.js'
import { foldText } from './fold-text.js'
import { BUILT_IN_MARKINGS, type MarkingEntry } from './marking-list.js'
import { type PhraseHit, PhraseMatcher, pickLeftmostLongest } from './phrase-matcher.js'
import { compileSafePattern, UnsafePatternError } from './safe-pattern.js'
import { scoreMarking } from './score-marking.js'
import type { BusinessSettings } from './settings.js'
import { isWholeWord } from './word-boundary.js'

/** What the phrase automaton knows about a phrase: a declared term or a marking. */
type PhraseEntry =
  | {
      readonly kind: 'term'
      readonly index: number
      readonly level: ClassificationLevel
      readonly category: string
    }
  | { readonly kind: 'marking'; readonly marking: MarkingEntry }

interface CompiledPattern {
  readonly name: string
  readonly regex: RegExp
  readonly level: ClassificationLevel
  readonly wholeWord: boolean
}

/** The settings of the detector that shape analysis (not what happens with the findings). */
export type DetectorSettings = Pick<
  BusinessSettings,
  | 'terms'
  | 'patterns'
  | 'markings'
  | 'extra_markings'
  | 'marking_min_score'
  | 'financial'
  | 'financial_min_score'
  | 'financial_level'
  | 'allow_list'
  | 'allow_patterns'
>

function settingsError(message: string, details: Record<string, unknown>): GovError {
  return new GovError(ErrorCodes.STEP_SETTINGS_INVALID, message, 400, { step: 'detect_business', ...details })
}

/** The most sensitive of the entries sharing a phrase. */
function strongest<T>(entries: readonly T[], levelOf: (entry: T) => ClassificationLevel): T {
  return entries.reduce((best, entry) =>
    levelRank(levelOf(entry)) > levelRank(levelOf(best)) ? entry : best,
  )
}

/**
 * All analysis of one text against one configuration: declared terms and
 * markings through one folded Aho–Corasick pass, identifier patterns, and
 * money amounts scored by context. Built once per pipeline settings.
 */
export class BusinessDetector {
  readonly #phrases: PhraseMatcher<PhraseEntry>
  readonly #patterns: CompiledPattern[]
  readonly #settings: DetectorSettings
  readonly #allowList: AllowList

  /** Compile `settings`; throws `GOV_ERR_STEP_SETTINGS_INVALID` (400) naming a refused pattern or term. */
  constructor(settings: DetectorSettings) {
    this.#settings = settings
    this.#allowList = new AllowList(settings.allow_list ?? [], settings.allow_patterns ?? [])
    this.#patterns = []
    settings.patterns.forEach((pattern, index) => {
      try {
        this.#patterns.push({
          name: pattern.name,
          regex: compileSafePattern(pattern.regex, pattern.ignore_case),
          level: pattern.level,
          wholeWord: pattern.whole_word,
        })
      } catch (error) {
        if (!(error instanceof UnsafePatternError)) throw error
        throw settingsError(`detect_business: pattern "${pattern.name}" is refused: ${error.message}`, {
          path: `/patterns/${index}/regex`,
          pattern: pattern.name,
          reason: error.reason,
        })
      }
    })
    const entries: PhraseEntry[] = settings.terms.map((term, index) => ({
      kind: 'term',
      index,
      level: term.level,
      category: term.category,
    }))
    settings.terms.forEach((term, index) => {
      if (!foldText(term.term).text.trim()) {
        throw settingsError(`detect_business: term ${index} has no letters or digits to match`, {
          path: `/terms/${index}/term`,
        })
      }
    })
    if (settings.markings) for (const marking of BUILT_IN_MARKINGS) entries.push({ kind: 'marking', marking })
    for (const marking of settings.extra_markings) entries.push({ kind: 'marking', marking })
    this.#phrases = new PhraseMatcher(entries, (entry) => {
      if (entry.kind === 'marking') return [entry.marking.text]
      const term = settings.terms[entry.index]
      return [term.term, ...term.aliases]
    })
  }

  /** Everything found in `text`, by start offset. */
  analyze(text: string): Detection[] {
    const detections: Detection[] = []
    if (!this.#phrases.empty) this.#findPhrases(text, detections)
    for (const pattern of this.#patterns) this.#findIdentifiers(text, pattern, detections)
    if (this.#settings.financial) this.#findFinancial(text, detections)
    return this.#allowList.filter(text, detections).sort((a, b) => a.start - b.start || b.end - a.end)
  }

  #findPhrases(text: string, out: Detection[]): void {
    const hits = this.#phrases.find(text)
    const termHits: PhraseHit<PhraseEntry>[] = []
    const markingHits: PhraseHit<PhraseEntry>[] = []
    for (const hit of hits) {
      const terms = hit.entries.filter((e) => e.kind === 'term')
      const markings = hit.entries.filter((e) => e.kind === 'marking')
      if (terms.length) termHits.push({ ...hit, entries: terms })
      if (markings.length) markingHits.push({ ...hit, entries: markings })
    }
    for (const hit of pickLeftmostLongest(termHits)) {
      const entry = strongest(hit.entries, (e) => (e.kind === 'term' ? e.level : 'public'))
      if (entry.kind !== 'term') continue
      out.push({
        type: FindingTypes.TERM,
        start: hit.start,
        end: hit.end,
        level: entry.level,
        score: 1,
        maskAs: entry.category.toUpperCase(),
        maskKey: `term:${entry.index}`,
        detail: { category: entry.category, term: entry.index },
      })
    }
    for (const hit of pickLeftmostLongest(markingHits)) {
      const entry = strongest(hit.entries, (e) => (e.kind === 'marking' ? e.marking.level : 'public'))
      if (entry.kind !== 'marking') continue
      const score = scoreMarking(text, hit.start, hit.end, entry.marking.strength)
      if (score < this.#settings.marking_min_score) continue
      out.push({
        type: FindingTypes.MARKING,
        start: hit.start,
        end: hit.end,
        level: entry.marking.level,
        score,
        maskAs: undefined,
        maskKey: undefined,
        detail: { marking: entry.marking.text },
      })
    }
  }

  #findIdentifiers(text: string, pattern: CompiledPattern, out: Detection[]): void {
    for (const match of text.matchAll(pattern.regex)) {
      const start = match.index ?? 0
      const end = start + match[0].length
      if (end === start || (pattern.wholeWord && !isWholeWord(text, start, end))) continue
      out.push({
        type: FindingTypes.IDENTIFIER,
        start,
        end,
        level: pattern.level,
        score: 1,
        maskAs: pattern.name.toUpperCase(),
        maskKey: undefined,
        detail: { pattern: pattern.name },
      })
    }
  }

  #findFinancial(text: string, out: Detection[]): void {
    for (const figure of findFinancialFigures(text)) {
      if (figure.score < this.#settings.financial_min_score) continue
      out.push({
        type: FindingTypes.FINANCIAL,
        start: figure.start,
        end: figure.end,
        level: this.#settings.financial_level,
        score: figure.score,
        maskAs: 'FINANCIAL_FIGURE',
        maskKey: undefined,
        detail: { cues: figure.cues },
      })
    }
  }
}
