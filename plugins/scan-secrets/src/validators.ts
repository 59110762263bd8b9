/**
 * Validators shared by rules: checks a regex cannot express (checksums,
 * character mix, decodable structure). Each returns a {@link RuleVerdict}.
 */
import { hasValidBase62Checksum } from './checksum.js'
import { isSequential } from './placeholder.js'
import type { RuleVerdict, SecretRule } from './rule.js'

/** Score of a well-formed token whose provider checksum does not match (a typo, or a hand-made look-alike). */
export const BAD_CHECKSUM_SCORE = 0.55

/**
 * GitHub and npm tokens: keep every well-formed token, but only a matching
 * CRC-32 checksum earns full confidence (`min_score` above 0.55 drops the rest).
 */
export function checksumToken(prefixLength: number): SecretRule['validate'] {
  return (secret) => {
    if (isSequential(secret.slice(prefixLength))) return false
    return hasValidBase62Checksum(secret, prefixLength)
      ? { score: 1, detail: { checksum: 'valid' } }
      : { score: BAD_CHECKSUM_SCORE, detail: { checksum: 'invalid' } }
  }
}

/** True when the string has both an upper- and a lower-case letter. */
export function hasMixedCase(value: string): boolean {
  return /[a-z]/.test(value) && /[A-Z]/.test(value)
}

/** True when the string has a digit and a letter. */
export function hasDigitAndLetter(value: string): boolean {
  return /\d/.test(value) && /[A-Za-z]/.test(value)
}

/** Keeps a match whose random part (after `prefixLength`) is not an alphabet or digit run. */
export function notSequential(prefixLength: number, score = 0.9): SecretRule['validate'] {
  return (secret): RuleVerdict => (isSequential(secret.slice(prefixLength)) ? false : { score })
}

/** Decodes standard or URL-safe base64 (padding optional) to a latin-1 string, or undefined. */
export function decodeBase64(value: string): string | undefined {
  const normal = value.replace(/-/g, '+').replace(/_/g, '/')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return undefined
  return Buffer.from(normal, 'base64').toString('latin1')
}

/** Share of printable ASCII characters in a decoded string. */
export function printableRatio(value: string): number {
  if (!value.length) return 0
  let printable = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13) printable++
  }
  return printable / value.length
}
