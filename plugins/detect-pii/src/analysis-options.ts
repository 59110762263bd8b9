import { ErrorCodes, GovError } from '@gov/core'
import type { AnalyzerOptions } from './analyze-text.js'
import type { Gazetteer } from './entities/gazetteer.js'
import { ENTITY_TYPES, type PiiType } from './pii-types.js'
import type { PiiSettings } from './settings.js'

/** The analyser's options as plain data, so they can be sent to an analysis worker. */
export interface PlainAnalyzerOptions {
  readonly types: readonly PiiType[]
  readonly minScore: number
  /** Lower-cased, trimmed terms never reported. */
  readonly allowList: readonly string[]
  /** Sources of regular expressions; a value matching one whole is never reported. */
  readonly allowPatterns: readonly string[]
  /** Which places are personal data. */
  readonly locations: 'personal' | 'all'
  /** Which organisations are personal data. */
  readonly organizations: 'personal' | 'all'
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
    allowPatterns: settings.allow_patterns.map((source, index) => {
      compilePattern(source, index)
      return source
    }),
    locations: settings.locations,
    organizations: settings.organizations,
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
    allowPatterns: plain.allowPatterns.map(compilePattern),
    locations: plain.locations,
    organizations: plain.organizations,
    phoneRegions: plain.phoneRegions,
    gazetteer: plain.entities ? gazetteer : undefined,
  }
}

/** An allow pattern anchored to the whole value; a pattern that does not compile is a settings error (400). */
function compilePattern(source: string, index: number): RegExp {
  try {
    return new RegExp(`^(?:${source})$`, 'iu')
  } catch (err) {
    throw new GovError(
      ErrorCodes.STEP_SETTINGS_INVALID,
      `allow_patterns[${index}] is not a valid regular expression: ${(err as Error).message}`,
      400,
      { step: 'detect_pii', setting: 'allow_patterns', index },
    )
  }
}
