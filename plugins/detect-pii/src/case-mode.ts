/** How a text is cased: in all-lower or all-upper text, capitals say nothing about names. */
export type CaseMode = 'normal' | 'lower' | 'upper'

/** Reads the casing of (the first ~4000 ASCII letters of) a text. */
export function caseModeOf(text: string): CaseMode {
  let upper = 0
  let lower = 0
  for (let i = 0; i < text.length && upper + lower < 4000; i++) {
    const c = text.charCodeAt(i)
    if (c >= 65 && c <= 90) upper++
    else if (c >= 97 && c <= 122) lower++
  }
  const letters = upper + lower
  if (letters < 12) return 'normal'
  if (upper / letters < 0.02) return 'lower'
  if (lower / letters < 0.1) return 'upper'
  return 'normal'
}
