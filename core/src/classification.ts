/**
 * Data classification levels, from least to most sensitive.
 *
 * Every finding carries one; the call's level is the highest level seen in the
 * request and the answer, and the host returns it in `x-gov-classification`.
 */
export const CLASSIFICATION_LEVELS = ['public', 'internal', 'confidential', 'restricted'] as const

/** One of {@link CLASSIFICATION_LEVELS}. */
export type ClassificationLevel = (typeof CLASSIFICATION_LEVELS)[number]

/** Rank of a level: `public` is 0, `restricted` is 3. */
export function levelRank(level: ClassificationLevel): number {
  return CLASSIFICATION_LEVELS.indexOf(level)
}

/** The more sensitive of two levels. */
export function maxLevel(a: ClassificationLevel, b: ClassificationLevel): ClassificationLevel {
  return levelRank(a) >= levelRank(b) ? a : b
}

/** True when `value` names a classification level. */
export function isClassificationLevel(value: unknown): value is ClassificationLevel {
  return typeof value === 'string' && (CLASSIFICATION_LEVELS as readonly string[]).includes(value)
}
