import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { sha256Hex } from '../audit/digest.js'

/**
 * The caller's key: `Authorization: Bearer <key>` (OpenAI SDK, and the
 * Anthropic SDK when given an auth token), or `x-api-key` (Anthropic SDK default).
 */
export function extractKey(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization
  if (auth) {
    // What SDKs send, `Bearer <key>` with printable ASCII after one space, without the regex and its match array.
    if (auth.startsWith('Bearer ') && isVisibleAscii(auth, 7)) return auth.slice(7)
    const match = BEARER.exec(auth)
    if (match) return match[1]
  }
  const apiKey = headers['x-api-key']
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim()
  return undefined
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** True when `text` from `start` on is one or more characters U+0021–U+007E (none of them whitespace). */
function isVisibleAscii(text: string, start: number): boolean {
  if (text.length <= start) return false
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x21 || c > 0x7e) return false
  }
  return true
}

/** Hex SHA-256 of a key: the only form in which agent keys are stored. */
export function hashKey(key: string): string {
  return sha256Hex(key)
}

/** A new agent API key (`gov_` + 32 random bytes, base64url). */
export function generateAgentKey(): string {
  return `gov_${randomBytes(32).toString('base64url')}`
}

/** Characters of a key shown to humans to tell keys apart. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12)
}

/** Constant-time comparison of two keys (by their hashes, so lengths never leak). */
export function sameKey(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest())
}
