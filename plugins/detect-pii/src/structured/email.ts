import type { Detection } from '../pii-types.js'
import { matchesOf } from './matches.js'

// Local part and labels allow letters of any script (internationalised addresses).
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}][\p{L}\p{N}._%+-]{0,63}@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,63}(?![\p{L}\p{N}-])/gu

/** Finds e-mail addresses (RFC 5321 shape: local part, dotted domain, alphabetic top-level label). */
export function findEmails(text: string): Detection[] {
  if (!text.includes('@')) return []
  const out: Detection[] = []
  for (const m of matchesOf(EMAIL, text)) {
    const local = m[0].slice(0, m[0].indexOf('@'))
    if (local.endsWith('.') || local.includes('..')) continue
    out.push({ type: 'EMAIL_ADDRESS', start: m.index, end: m.index + m[0].length, score: 0.95 })
  }
  return out
}
