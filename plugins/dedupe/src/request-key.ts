import { createHash } from 'node:crypto'
import type { CallInfo, Exchange } from '@gov/core'
import canonicalize from 'canonicalize'

/** Body fields that do not change the answer's content, only how it is delivered. */
const DELIVERY_FIELDS = new Set(['stream', 'stream_options'])

/**
 * The identity of a request: the agent, the vendor format and the governed
 * body (after earlier steps masked it) in RFC 8785 canonical form, without
 * delivery fields — a streaming and a non-streaming caller of the same request
 * share one answer. Two agents never share a key.
 */
export function requestKey(call: CallInfo, exchange: Exchange): string {
  const body: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(exchange.body)) {
    if (!DELIVERY_FIELDS.has(field)) body[field] = value
  }
  const digest = createHash('sha256')
    .update(canonicalize(body) ?? '')
    .digest('base64url')
  return `${encodeURIComponent(call.agentId)}:${exchange.vendor}:${digest}`
}

/** True when the request asks for a deterministic answer (`temperature: 0`). */
export function isDeterministic(exchange: Exchange): boolean {
  return exchange.body.temperature === 0
}
