import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'

/**
 * A short hash of a tool call: the tool name and its arguments in canonical
 * JSON (RFC 8785: keys sorted, numbers and strings in one form), so the same
 * call written with keys in another order or other spacing is the same call.
 * Arguments that are not JSON are hashed as sent, trimmed.
 */
export function callHash(name: string, args: string): string {
  let normalised: string
  try {
    normalised = canonicalize(JSON.parse(args)) ?? ''
  } catch {
    normalised = args.trim()
  }
  return createHash('sha256').update(name).update('\0').update(normalised).digest('base64url').slice(0, 22)
}
