import type { ClassificationLevel } from '@gov/core'

/** Finding types this step reports. */
export const FindingTypes = {
  /** A declared business term or one of its aliases. */
  TERM: 'business_term',
  /** A match of a declared identifier pattern. */
  IDENTIFIER: 'business_identifier',
  /** A confidentiality marking ("CONFIDENTIAL", "internal use only", …). */
  MARKING: 'confidentiality_marking',
  /** A money amount in a financial context. */
  FINANCIAL: 'financial_figure',
} as const

/** One of {@link FindingTypes}. */
export type BusinessFindingType = (typeof FindingTypes)[keyof typeof FindingTypes]

/** Something found in one text, in offsets of that text. Cached per text; never holds the matched value. */
export interface Detection {
  readonly type: BusinessFindingType
  readonly start: number
  readonly end: number
  readonly level: ClassificationLevel
  /** Confidence 0..1. */
  readonly score: number
  /**
   * Placeholder stem when the span may be masked (`CODE_NAME` → `<CODE_NAME_1>`);
   * undefined for markings, which are not masked.
   */
  readonly maskAs: string | undefined
  /**
   * Identity of the masked value, so one value gets one placeholder across a
   * call: a term and its aliases share `term:<index>`; undefined when the value itself is the identity.
   */
  readonly maskKey: string | undefined
  /** Finding detail: labels and indexes, never the value. */
  readonly detail: Readonly<Record<string, unknown>>
}
