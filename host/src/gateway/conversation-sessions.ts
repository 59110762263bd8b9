import { createHash } from 'node:crypto'
import { type KeyValueStore, TextCache, type Vendor } from '@gov/core'

/** How long gov remembers which session a stored response belongs to (the provider keeps them 30 days). */
const RESPONSE_TTL_MS = 30 * 24 * 3_600_000
/** How long gov remembers the session of an Anthropic history: as long as session state lives (24 h by default). */
const THREAD_TTL_MS = 24 * 3_600_000

/**
 * The session of a call that sent no `X-Gov-Session`, so masking, taint, loop
 * counts and the token's `sid` carry across the turns of one conversation.
 * Every key carries the agent: another agent naming the same response id,
 * container or history finds nothing.
 *
 * Precedence: `X-Gov-Session` (the caller's, never derived) → a reference to
 * state the provider holds → the session derived from the history → a new
 * session for this call.
 *
 * - Responses API: `conversation` → that conversation's session;
 *   `previous_response_id` → the session of that response.
 * - Anthropic Messages: `thread: {type: 'continue', previous_message_id}` (the
 *   server-held thread the SDK's tool runner uses: it sends only the new turn's
 *   messages) → the session of that message; `container` (the code-execution
 *   container, whose files outlive a turn) → the session of the call that
 *   created it; else the history:
 *   a client resends the whole conversation each turn (the SDK's tool runner,
 *   LangChain, the AI SDK), so gov remembers a fingerprint of each answered
 *   call's history plus the answer it returned, and a request whose messages up
 *   to its last assistant turn have that fingerprint continues that session.
 *   The fingerprint covers the system prompt and each message's text, tool-call
 *   ids and tool results, so a client that re-encodes messages (a string for a
 *   text block, merged text blocks) still matches, and two conversations share a
 *   session only if their histories are the same up to a model answer.
 *   The fingerprint is a hash over each message's digest, and the digests are
 *   cached per message, so a turn costs its new messages, not the history.
 * - Chat Completions: no derivation (a call without `X-Gov-Session` stays in the agent-wide scope).
 */
export class ConversationSessions {
  /** Fingerprint of each Anthropic request's history, taken before steps edit the body. */
  readonly #histories = new WeakMap<object, string>()
  /** Tool names of the held thread a request continues, when it sends none itself (the provider keeps them). */
  readonly #heldTools = new WeakMap<object, readonly string[]>()

  constructor(private readonly kv: KeyValueStore) {}

  /**
   * The session of a call without `X-Gov-Session`; undefined when the vendor
   * has none to derive. A promise only when the answer needs a stored lookup
   * (a continued response, thread, container or history), so a first turn
   * costs no promise on the hot path.
   */
  derive(
    agentId: string,
    vendor: Vendor,
    body: Record<string, unknown>,
    requestId: string,
  ): string | undefined | Promise<string | undefined> {
    if (vendor === 'openai-responses') return this.#deriveResponses(agentId, body, requestId)
    if (vendor === 'anthropic') return this.#deriveMessages(agentId, body, requestId)
    return undefined
  }

  /**
   * The tools a call continuing an Anthropic held thread may use when it sends
   * none: the provider keeps the thread's tools, so the capability token's
   * `tools` claim names those of the turn that sent them.
   */
  heldTools(body: object): readonly string[] | undefined {
    return this.#heldTools.get(body)
  }

  /** Remember the session of an answered call (and the tools it offered), so its follow-ups continue it. */
  async remember(
    agentId: string,
    vendor: Vendor,
    body: Record<string, unknown>,
    answer: Record<string, unknown> | undefined,
    sessionId: string,
    tools: readonly string[],
  ): Promise<void> {
    if (!answer) return
    if (vendor === 'openai-responses') {
      const id = answer.id
      if (typeof id === 'string' && id !== '')
        await this.kv.set(this.#key(agentId, 'response', id), sessionId, RESPONSE_TTL_MS)
      return
    }
    if (vendor !== 'anthropic') return
    const history = this.#histories.get(body)
    const writes: Promise<void>[] = []
    // A held thread is continued by the id of its last answer.
    if (isObject(body.thread) && typeof answer.id === 'string' && answer.id !== '') {
      const held = JSON.stringify({
        session: sessionId,
        tools: tools.length ? tools : (this.heldTools(body) ?? []),
      })
      writes.push(this.kv.set(this.#key(agentId, 'message', answer.id), held, RESPONSE_TTL_MS))
    }
    if (history !== undefined && !isObject(body.thread)) {
      const next = extend(history, { role: 'assistant', content: answer.content })
      writes.push(this.kv.set(this.#key(agentId, 'thread', next), sessionId, THREAD_TTL_MS))
    }
    const container = idOf(answer.container)
    if (container)
      writes.push(this.kv.set(this.#key(agentId, 'container', container), sessionId, THREAD_TTL_MS))
    await Promise.all(writes)
  }

  #deriveResponses(
    agentId: string,
    body: Record<string, unknown>,
    requestId: string,
  ): string | Promise<string> {
    const conversation = typeof body.conversation === 'string' ? body.conversation : idOf(body.conversation)
    if (conversation) return `conversation:${conversation}`
    const previous = body.previous_response_id
    if (typeof previous === 'string' && previous !== '') {
      return this.kv
        .get(this.#key(agentId, 'response', previous))
        .then((known) => known ?? `response:${previous}`)
    }
    return `response:${requestId}`
  }

  async #continueThread(agentId: string, body: Record<string, unknown>, previous: string): Promise<string> {
    const known = readHeld(await this.kv.get(this.#key(agentId, 'message', previous)))
    if (known?.tools.length) this.#heldTools.set(body, known.tools)
    return known?.session ?? `message:${previous}`
  }

  #deriveMessages(
    agentId: string,
    body: Record<string, unknown>,
    requestId: string,
  ): string | Promise<string> {
    const thread = isObject(body.thread) ? body.thread : undefined
    const previous = thread?.type === 'continue' ? thread.previous_message_id : undefined
    if (typeof previous === 'string' && previous !== '') return this.#continueThread(agentId, body, previous)
    const messages = Array.isArray(body.messages) ? body.messages : []
    const lastAnswer = messages.findLastIndex((m) => isObject(m) && m.role === 'assistant')
    // One running hash over the system prompt's digest and each message's digest; its digest
    // before the last answer, extended by that answer, is what remember() stored for the call
    // that gave it. Each digest comes from the digest cache, so a turn costs its new messages.
    const running = createHash('sha256').update(partsDigest(['system', textOf(body.system)]))
    let upToAnswer: string | undefined
    messages.forEach((message, k) => {
      const digest = messageDigest(message)
      if (k === lastAnswer) upToAnswer = extendBy(running.copy().digest('base64url'), digest)
      running.update(digest)
    })
    this.#histories.set(body, running.digest('base64url'))
    const container = typeof body.container === 'string' ? body.container : idOf(body.container)
    // A first turn without a container has nothing stored to look up.
    if (!container && upToAnswer === undefined) return `thread:${requestId}`
    return this.#lookUpHistory(agentId, container, upToAnswer, requestId)
  }

  /** The stored session of a container or of the history up to the last answer, else a new one. */
  async #lookUpHistory(
    agentId: string,
    container: string | undefined,
    upToAnswer: string | undefined,
    requestId: string,
  ): Promise<string> {
    if (container) {
      const known = await this.kv.get(this.#key(agentId, 'container', container))
      if (known) return known
    }
    if (upToAnswer !== undefined) {
      const known = await this.kv.get(this.#key(agentId, 'thread', upToAnswer))
      if (known) return known
    }
    return container ? `container:${container}` : `thread:${requestId}`
  }

  #key(agentId: string, kind: string, id: string): string {
    const prefix = kind === 'response' ? '' : `${kind}:`
    return `conv:${encodeURIComponent(agentId)}:${prefix}${encodeURIComponent(id)}`
  }
}

/** A held thread's session and tools as {@link ConversationSessions.remember} stored them. */
function readHeld(value: string | undefined): { session: string; tools: string[] } | undefined {
  if (value === undefined) return undefined
  try {
    const held = JSON.parse(value) as { session?: unknown; tools?: unknown }
    if (typeof held.session !== 'string') return undefined
    const tools = Array.isArray(held.tools)
      ? held.tools.filter((t): t is string => typeof t === 'string')
      : []
    return { session: held.session, tools }
  } catch {
    return undefined
  }
}

/** The fingerprint of a history (a digest) extended by one message. */
function extend(history: string, message: unknown): string {
  return extendBy(history, messageDigest(message))
}

function extendBy(history: string, digest: Buffer): string {
  return createHash('sha256').update(history).update(digest).digest('base64url')
}

/**
 * SHA-256 of each message's identifying parts (their JSON), found again by
 * those parts without hashing them: a client resends the whole conversation
 * every turn, and each earlier message is then a cache hit (a sampled pre-key
 * and an exact string compare, `TextCache`). Shared by agents: a digest is a
 * function of the message alone; every stored key still carries the agent.
 * Bounded by entries and bytes.
 */
const digests = new TextCache<Buffer>({ max: 16_384, maxBytes: 32 * 1024 * 1024, sizeOfValue: () => 96 })

function messageDigest(message: unknown): Buffer {
  return partsDigest(canonical(message))
}

/** Cache tags of a message that is one text by a common role: its text is the whole key. */
const TEXT_TAGS: ReadonlyMap<unknown, number> = new Map([
  ['user', 1],
  ['assistant', 2],
  ['system', 3],
])

function partsDigest(parts: readonly unknown[]): Buffer {
  // Most messages are one text by a common role: that text (already a flat string) is the key,
  // the role its tag; any other message is keyed by all its parts (tag 0).
  const only = parts.length === 2 && Array.isArray(parts[1]) ? (parts[1] as unknown[]) : undefined
  const tag =
    only?.length === 2 && only[0] === 'text' && typeof only[1] === 'string'
      ? (TEXT_TAGS.get(parts[0]) ?? 0)
      : 0
  const key = tag ? (only![1] as string) : cacheKey(parts)
  const known = key === undefined ? undefined : digests.get(key, tag)
  if (known) return known
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest()
  if (key !== undefined) digests.set(key, digest, tag)
  return digest
}

/**
 * The parts of a message as one string that names them exactly: every string
 * prefixed by its length, every list by its count (`[n|`), so two different
 * part lists never give the same key. Undefined for parts that are not
 * strings or lists of strings (digested without the cache).
 */
function cacheKey(parts: readonly unknown[]): string | undefined {
  let key = ''
  for (const part of parts) {
    if (typeof part === 'string') {
      key += `${part.length}:${part}`
      continue
    }
    if (!Array.isArray(part)) return undefined
    key += `[${part.length}|`
    for (const field of part) {
      if (typeof field !== 'string') return undefined
      key += `${field.length}:${field}`
    }
  }
  return key
}

/**
 * What identifies a message across clients that re-encode it: its role, its
 * text (adjacent text blocks merged, empty ones dropped), tool-call ids and
 * tool results. Signatures, citations, cache_control and other fields a client
 * may drop or rewrite are left out.
 */
function canonical(message: unknown): unknown[] {
  if (!isObject(message)) return [String(message)]
  if ('system' in message) return ['system', message.system]
  const out: unknown[] = [message.role]
  let text = ''
  const flush = () => {
    if (text !== '') out.push(['text', text])
    text = ''
  }
  const content =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
  for (const block of Array.isArray(content) ? content : []) {
    if (!isObject(block)) continue
    if (block.type === 'text') {
      text += typeof block.text === 'string' ? block.text : ''
      continue
    }
    flush()
    if (block.type === 'tool_result') out.push(['result', block.tool_use_id, textOf(block.content)])
    else out.push([block.type, typeof block.id === 'string' ? block.id : ''])
  }
  flush()
  return out
}

/** The text of a string or of an array of text blocks. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) return ''
  return value.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function idOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined
  const id = value.id
  return typeof id === 'string' && id !== '' ? id : undefined
}
