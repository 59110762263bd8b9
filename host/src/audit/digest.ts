/**
 * The two primitives of the audit trail: RFC 8785 canonical JSON (the
 * `canonicalize` package, so any JCS implementation in any language
 * reproduces the bytes) and lower-case hex SHA-256.
 */
import * as crypto from 'node:crypto'
import canonicalize from 'canonicalize'

/** node:crypto's one-shot `hash` (Node ≥ 20.12): no Hash object per digest, ~0.8 µs less per call here. */
const oneShot = (
  crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }
).hash

/** Lower-case hex SHA-256 of a string (as UTF-8) or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex')
}

/**
 * RFC 8785 (JCS) canonical JSON of `value`. Throws on values JSON cannot carry
 * canonically (NaN, Infinity, lone surrogates, cycles).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value)
  if (text === undefined) throw new TypeError('value has no JSON form')
  return text
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * A string that canonical JSON, Postgres `text` and `jsonb` all accept: lone
 * surrogates and NUL become U+FFFD. Applied to names that steps choose
 * (finding types, block codes), which the host does not validate.
 */
export function storableText(text: string): string {
  // Nearly every text is already storable: two native scans instead of a regex replace per call.
  if ((text as string & { isWellFormed(): boolean }).isWellFormed() && !text.includes('\u0000')) return text
  return text.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '\uFFFD')
}
