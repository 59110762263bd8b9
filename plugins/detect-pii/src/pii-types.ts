import type { ClassificationLevel } from '@gov/core'

/** Every kind of personal data the step can detect. */
export const PII_TYPES = [
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'CREDIT_CARD',
  'IBAN_CODE',
  'US_SSN',
  'IP_ADDRESS',
  'DATE_OF_BIRTH',
  'STREET_ADDRESS',
  'PERSON',
  'LOCATION',
  'ORGANIZATION',
] as const

/** One of {@link PII_TYPES}. */
export type PiiType = (typeof PII_TYPES)[number]

/** Types found by the named-entity tagger (switched off with `entities: false`). */
export const ENTITY_TYPES: readonly PiiType[] = ['PERSON', 'LOCATION', 'ORGANIZATION']

/**
 * Classification level each type implies. Identifiers that allow fraud on their
 * own are `restricted`; data that identifies or reaches a person is
 * `confidential`; coarse or organisational data is `internal`.
 */
export const PII_LEVELS: Readonly<Record<PiiType, ClassificationLevel>> = {
  US_SSN: 'restricted',
  CREDIT_CARD: 'restricted',
  IBAN_CODE: 'restricted',
  EMAIL_ADDRESS: 'confidential',
  PHONE_NUMBER: 'confidential',
  PERSON: 'confidential',
  STREET_ADDRESS: 'confidential',
  DATE_OF_BIRTH: 'confidential',
  IP_ADDRESS: 'internal',
  LOCATION: 'internal',
  ORGANIZATION: 'internal',
}

/** One detected value: where it sits in the analysed text, what it is and how sure we are. */
export interface Detection {
  readonly type: PiiType
  /** UTF-16 offset of the first character. */
  readonly start: number
  /** UTF-16 offset after the last character. */
  readonly end: number
  /** Confidence 0..1. */
  readonly score: number
}
