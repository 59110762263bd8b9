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
