/**
 * The Exchange model: one call to a language model, seen the same way whichever
 * vendor format it arrived in. Vendor adapters in the host build it; steps read
 * it and may edit text in place.
 */

/** Vendor formats the host speaks: OpenAI Chat Completions, Anthropic Messages, OpenAI Responses. */
export type Vendor = 'openai' | 'anthropic' | 'openai-responses'

/** Where a piece of text came from. */
export type MessageSource = 'system' | 'user' | 'assistant' | 'tool'

/**
 * What a text part is:
 * - `text`: message content written by a system prompt, the user or the assistant;
 * - `tool_result`: text a tool returned and the agent fed back (indirect injection lives here);
 * - `tool_arguments`: the JSON arguments of a tool call the model made.
 */
export type TextPartKind = 'text' | 'tool_result' | 'tool_arguments'

/** How a text part's value is stored in the vendor body when it is not a plain string. */
export interface TextCodec {
  decode(stored: unknown): string
  encode(text: string): unknown
}

/** Stores a JSON value (e.g. Anthropic's `tool_use.input` object) as JSON text. */
export const JSON_CODEC: TextCodec = {
  decode: (stored) => JSON.stringify(stored ?? {}),
  encode: (text) => JSON.parse(text),
}

/**
 * One piece of text of a call, bound to the place where it lives in the
 * original vendor body. Setting `text` writes through to that place, so masking
 * edits the body in place and fields gov does not know pass untouched.
 */
export class TextPart {
  /** Locator inside the vendor body, e.g. `messages[2].content[0].text`. Stable within a call. */
  readonly id: string
  /** Index of the message in {@link Exchange.messages} (or 0 for an answer). */
  readonly messageIndex: number
  /** Where the text came from. */
  readonly source: MessageSource
  /** What the text is. */
  readonly kind: TextPartKind
  readonly #holder: Record<string | number, unknown>
  readonly #key: string | number
  readonly #codec: TextCodec | undefined
  #edited = false

  constructor(options: {
    id: string
    messageIndex: number
    source: MessageSource
    kind: TextPartKind
    holder: Record<string | number, unknown> | unknown[]
    key: string | number
    codec?: TextCodec
  }) {
    this.id = options.id
    this.messageIndex = options.messageIndex
    this.source = options.source
    this.kind = options.kind
    this.#holder = options.holder as Record<string | number, unknown>
    this.#key = options.key
    this.#codec = options.codec
  }

  /** The current text. */
  get text(): string {
    const stored = this.#holder[this.#key]
    if (this.#codec) return this.#codec.decode(stored)
    return typeof stored === 'string' ? stored : ''
  }

  /** Replace the text; writes through to the vendor body. */
  set text(next: string) {
    if (next === this.text) return
    this.#holder[this.#key] = this.#codec ? this.#codec.encode(next) : next
    this.#edited = true
  }

  /** True once a step changed this part. */
  get edited(): boolean {
    return this.#edited
  }
}

/** A tool the caller offers the model. */
export interface ToolDefinition {
  readonly name: string
  readonly description?: string
  /** JSON schema of the arguments, as sent. */
  readonly parameters?: unknown
}

/** A tool call the model made (in an earlier turn, or in this answer). */
export interface ToolCall {
  /** The vendor's call id (`call_…`, `toolu_…`). */
  readonly id: string
  readonly name: string
  /** The arguments as JSON text, editable in place. */
  readonly arguments: TextPart
}

/** A tool result the agent feeds back to the model. */
export interface ToolResult {
  /** Id of the tool call this answers. */
  readonly toolCallId: string
  /** True when the agent marked the result as an error (Anthropic `is_error`). */
  readonly isError: boolean
  /** The text of the result. */
  readonly parts: readonly TextPart[]
}

/** One message of the conversation, in order. */
export interface Message {
  /** Position in {@link Exchange.messages}. */
  readonly index: number
  /** The vendor's role as sent (`system`, `developer`, `user`, `assistant`, `tool`). */
  readonly role: string
  /** Where the message came from. Tool results carry source `tool`. */
  readonly source: MessageSource
  /** Every text of the message: content, tool-result text, tool-call arguments. */
  readonly parts: readonly TextPart[]
  /** Tool calls the assistant made in this message. */
  readonly toolCalls: readonly ToolCall[]
  /** Tool results this message feeds back. */
  readonly toolResults: readonly ToolResult[]
}

/**
 * What the request says about tool use (`tool_choice`): `auto` (the model
 * decides), `none`, `required` (some tool), or `tool` (the one named).
 */
export interface ToolChoice {
  readonly mode: 'auto' | 'none' | 'required' | 'tool'
  /** The forced tool when `mode` is `tool`. */
  readonly name?: string
}

/** Content of a request gov cannot read (media) or does not know (an unknown block type). */
export interface UnscannedContent {
  /** Where it sits in the vendor body, e.g. `messages[1].content[2]`. */
  readonly path: string
  readonly kind: 'media' | 'unknown'
  /** The vendor's type of the block, e.g. `image`, `input_audio`. */
  readonly type: string
}

/** The request side of one call. */
export interface Exchange {
  readonly vendor: Vendor
  readonly model: string
  readonly stream: boolean
  /** The conversation in order; a top-level system prompt (Anthropic `system`) comes first. */
  readonly messages: readonly Message[]
  /** Tools offered to the model — after any {@link Exchange.narrowTools}. */
  readonly tools: readonly ToolDefinition[]
  /** The request's `tool_choice`, when it sets one. */
  readonly toolChoice: ToolChoice | undefined
  /** Content the adapter could not turn into text parts (images, unknown blocks). */
  readonly unscanned?: readonly UnscannedContent[]
  /**
   * Offer upstream only the tools `keep` accepts: removes the others from the
   * vendor body and from {@link Exchange.tools}, and returns their names. Tools
   * can only be taken away; the capability token grants what remains.
   */
  narrowTools(keep: (tool: ToolDefinition) => boolean): string[]
  /**
   * The vendor request body. Steps edit text through {@link TextPart}s and
   * tools through {@link Exchange.narrowTools}; a step that takes `body` may
   * also change it directly, so the host then sends the body as JSON.
   */
  readonly body: Record<string, unknown>
  /**
   * The same body, for reading only (core 0.3.4; absent from older hosts:
   * read `bodyView ?? body`). A step must not change anything through it.
   * When no step took {@link Exchange.body}, edited a text part or narrowed
   * the tools, the host may send the caller's own bytes upstream instead of
   * serialising the body again (a long conversation's JSON on every turn).
   */
  readonly bodyView?: Readonly<Record<string, unknown>>
}

/**
 * Token usage an answer reports. Input counts are totals for every vendor:
 * OpenAI's `prompt_tokens` / `input_tokens` already include cached tokens;
 * Anthropic's `input_tokens` does not, so its adapter adds
 * `cache_read_input_tokens` and `cache_creation_input_tokens`.
 */
export interface Usage {
  /** Every input token of the call, cached and cache-written ones included. */
  readonly inputTokens?: number
  readonly outputTokens?: number
  /**
   * Part of {@link inputTokens} read from the provider's prompt cache (billed at
   * the cheaper cached price): OpenAI `prompt_tokens_details.cached_tokens` /
   * `input_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`.
   * Present only when the provider reported it.
   */
  readonly cachedInputTokens?: number
  /**
   * Part of {@link inputTokens} written to the provider's prompt cache (Anthropic
   * `cache_creation_input_tokens`, billed above the input price). Present only
   * when the provider reported it.
   */
  readonly cacheWriteInputTokens?: number
  /**
   * Part of {@link cacheWriteInputTokens} written to the one-hour cache
   * (Anthropic `cache_creation.ephemeral_1h_input_tokens`, billed at twice the
   * input price against 1.25 times for the five-minute cache). Present only
   * when the provider reported it.
   */
  readonly cacheWrite1hInputTokens?: number
}

/** The model's answer to one call, complete (streamed answers are reassembled first). */
export interface Answer {
  readonly vendor: Vendor
  readonly model: string
  /** The answer as an assistant message: text parts and tool calls. */
  readonly message: Message
  /** Vendor stop reason (`stop`, `tool_calls`, `end_turn`, `tool_use`, …). */
  readonly finishReason: string | undefined
  readonly usage: Usage | undefined
  /** The complete non-streaming vendor answer body. */
  readonly body: Record<string, unknown>
  /**
   * Remove a tool call from the answer (body, {@link Message.toolCalls} and its
   * argument part); when none is left the stop reason becomes the vendor's plain
   * end of turn. Later steps no longer see it.
   */
  removeToolCall(id: string): void
}

/** Every text part of the given messages, in order. */
export function* textParts(messages: readonly Message[]): Generator<TextPart> {
  for (const message of messages) yield* message.parts
}
