import type { KeyValueStore } from '@gov/core'

/** How long gov remembers which session a stored response belongs to. */
const RESPONSE_TTL_MS = 30 * 24 * 3_600_000

/**
 * Sessions of conversations the provider holds (the Responses API's
 * `conversation` and `previous_response_id`): a call that continues one by
 * reference continues its session, so masking, taint, loop counts and the
 * token's tools carry across turns without `X-Gov-Session`. Every key carries
 * the agent: another agent naming the same response id finds nothing.
 *
 * Precedence: `X-Gov-Session` → `conversation` → the session of
 * `previous_response_id` → a new session for this response.
 */
export class ConversationSessions {
  constructor(private readonly kv: KeyValueStore) {}

  /** The session id of a Responses call without `X-Gov-Session`. */
  async derive(agentId: string, body: Record<string, unknown>, requestId: string): Promise<string> {
    const conversation = typeof body.conversation === 'string' ? body.conversation : idOf(body.conversation)
    if (conversation) return `conversation:${conversation}`
    const previous = body.previous_response_id
    if (typeof previous === 'string' && previous !== '') {
      const known = await this.kv.get(this.#key(agentId, previous))
      return known ?? `response:${previous}`
    }
    return `response:${requestId}`
  }

  /** Remember the session of an answered response, so its follow-ups continue it. */
  async remember(agentId: string, responseId: unknown, sessionId: string): Promise<void> {
    if (typeof responseId !== 'string' || responseId === '') return
    await this.kv.set(this.#key(agentId, responseId), sessionId, RESPONSE_TTL_MS)
  }

  #key(agentId: string, responseId: string): string {
    return `conv:${encodeURIComponent(agentId)}:${encodeURIComponent(responseId)}`
  }
}

function idOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' && id !== '' ? id : undefined
}
