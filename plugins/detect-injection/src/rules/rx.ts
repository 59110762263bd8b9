/**
 * Compile a rule pattern. Rules are matched against the lower-cased text
 * (unless marked case-sensitive), so patterns are written in lower case and
 * compiled without the `i` flag: `iu` together makes V8 fold case for every
 * Unicode character and costs about ten times as much per match.
 */
export function rx(source: string): RegExp {
  return new RegExp(source, 'u')
}

/**
 * Word boundaries for lower-cased Latin-script words with accents (`\b` in JS
 * is ASCII-only, and `\p{L}` lookarounds at every position are slow).
 */
export const B = '(?<![a-z0-9_\\u00df-\\u024f])'
export const E = '(?![a-z0-9_\\u00df-\\u024f])'

/**
 * Needles of two words: every `first second` pair. A space in a needle stands
 * for any run of whitespace (see needle-index.ts), so pairs fit patterns that
 * write `\s+` between the two words, and are far rarer in benign text than
 * either word alone.
 */
export function phrases(firsts: readonly string[], seconds: readonly string[]): string[] {
  return firsts.flatMap((first) => seconds.map((second) => `${first} ${second}`))
}
