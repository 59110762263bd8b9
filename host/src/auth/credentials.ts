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
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth)
    if (match) return match[1]
  }
  const apiKey = headers['x-api-key']
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim()
  return undefined
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
