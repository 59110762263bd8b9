import type { AnalyzerOptions } from './analyze-text.js'
import type { Gazetteer } from './entities/gazetteer.js'
import { ENTITY_TYPES, type PiiType } from './pii-types.js'
import type { PiiSettings } from './settings.js'

/** The analyser's options as plain data, so they can be sent to an analysis worker. */
export interface PlainAnalyzerOptions {
  readonly types: readonly PiiType[]
  readonly minScore: number
  /** Lower-cased, trimmed values never reported. */
  readonly allowList: readonly string[]
  readonly phoneRegions: readonly string[]
  /** True when named entities are detected (the gazetteer is needed). */
  readonly entities: boolean
}

/** The plain analyser options of a step's settings. */
export function plainOptions(settings: PiiSettings): PlainAnalyzerOptions {
  return {
    types: [...settings.types],
    minScore: settings.min_score,
    allowList: settings.allow_list.map((v) => v.trim().toLowerCase()),
    phoneRegions: [...settings.phone_regions],
    entities: settings.entities && ENTITY_TYPES.some((t) => settings.types.includes(t)),
  }
}

/** Analyser options from plain ones and the loaded gazetteer (undefined when entities are off). */
export function analyzerOptions(
  plain: PlainAnalyzerOptions,
  gazetteer: Gazetteer | undefined,
): AnalyzerOptions {
  return {
    types: new Set(plain.types),
    minScore: plain.minScore,
    allowList: new Set(plain.allowList),
    phoneRegions: plain.phoneRegions,
    gazetteer: plain.entities ? gazetteer : undefined,
  }
}
