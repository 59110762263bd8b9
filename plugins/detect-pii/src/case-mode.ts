/** How a text is cased: in all-lower or all-upper text, capitals say nothing about names. */
export type CaseMode = 'normal' | 'lower' | 'upper'

/** ASCII letters read to decide the casing; the start of a long text is enough. */
export const CASE_SAMPLE_LETTERS = 4000

/** The casing given the counts of upper- and lower-case ASCII letters. */
export function caseModeFromCounts(upper: number, lower: number): CaseMode {
  const letters = upper + lower
  if (letters < 12) return 'normal'
  if (upper / letters < 0.02) return 'lower'
  if (lower / letters < 0.1) return 'upper'
  return 'normal'
}
