/**
 * The vendor-specific edits behind the Exchange's and the Answer's typed
 * operations: `tool_choice`, narrowing the tools offered, removing a tool call
 * from an answer, and the feedback turn of a retry. One table per vendor; the
 * binding to the Exchange and the Answer is shared.
 */
import type { Answer, Exchange, ToolChoice, ToolDefinition } from '@gov/core'
import type { AnswerData, ExchangeData } from './adapter.js'
import { isRecord } from './json-values.js'

/** What differs between vendors. */
export interface ToolOps {
  /** The request's `tool_choice`, read from the body. */
  toolChoice(body: Record<string, unknown>): ToolChoice | undefined
  /** Remove the named tools from the request body (and a `tool_choice` that named one). */
  removeTools(body: Record<string, unknown>, names: ReadonlySet<string>): void
  /** Remove one tool call from an answer body; returns true when none is left. */
  removeToolCall(body: Record<string, unknown>, id: string): boolean
  /** The request body of a retry: the conversation, the refused answer's text, then `feedback` from the user. */
  withFeedback(body: Record<string, unknown>, answerText: string, feedback: string): Record<string, unknown>
}

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** Drop `key` from `body` when it is an array that became empty (providers refuse `tools: []`). */
function filterArray(body: Record<string, unknown>, key: string, keep: (item: unknown) => boolean): void {
  if (!Array.isArray(body[key])) return
  const kept = (body[key] as unknown[]).filter(keep)
  if (kept.length) body[key] = kept
  else delete body[key]
}

function feedbackTurns(body: Record<string, unknown>, answerText: string, feedback: string) {
  return {
    ...body,
    messages: [
      ...arrayOf(body.messages),
      { role: 'assistant', content: answerText || '(empty answer)' },
      { role: 'user', content: feedback },
    ],
  }
}

/** OpenAI Chat Completions. */
export const OPENAI_TOOL_OPS: ToolOps = {
  toolChoice(body) {
    const choice = body.tool_choice ?? body.function_call
    if (choice === 'auto' || choice === 'none' || choice === 'required') return { mode: choice }
    if (isRecord(choice)) {
      const fn = isRecord(choice.function)
        ? choice.function
        : isRecord(choice.custom)
          ? choice.custom
          : choice
      if (typeof fn.name === 'string') return { mode: 'tool', name: fn.name }
    }
    return undefined
  },
  removeTools(body, names) {
    const nameOf = (tool: unknown) => {
      if (!isRecord(tool)) return undefined
      const inner = isRecord(tool.function) ? tool.function : isRecord(tool.custom) ? tool.custom : tool
      return typeof inner.name === 'string' ? inner.name : undefined
    }
    filterArray(body, 'tools', (t) => !names.has(nameOf(t) ?? ''))
    filterArray(body, 'functions', (t) => !names.has(nameOf(t) ?? ''))
    const choice = this.toolChoice(body)
    if (choice?.mode === 'tool' && choice.name !== undefined && names.has(choice.name)) {
      delete body.tool_choice
      delete body.function_call
    }
    if (body.tools === undefined && body.functions === undefined) {
      delete body.tool_choice
      delete body.parallel_tool_calls
    }
  },
  removeToolCall(body, id) {
    let left = 0
    for (const choice of arrayOf(body.choices)) {
      if (!isRecord(choice) || !isRecord(choice.message)) continue
      const message = choice.message
      if (Array.isArray(message.tool_calls)) {
        message.tool_calls = message.tool_calls.filter((c) => !(isRecord(c) && c.id === id))
        if ((message.tool_calls as unknown[]).length === 0) {
          delete message.tool_calls
          if (message.content == null) message.content = ''
          if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop'
        }
      }
      left += arrayOf(message.tool_calls).length
    }
    return left === 0
  },
  withFeedback: feedbackTurns,
}

/** Anthropic Messages. */
export const ANTHROPIC_TOOL_OPS: ToolOps = {
  toolChoice(body) {
    const choice = body.tool_choice
    if (!isRecord(choice)) return undefined
    if (choice.type === 'tool' && typeof choice.name === 'string') return { mode: 'tool', name: choice.name }
    if (choice.type === 'any') return { mode: 'required' }
    if (choice.type === 'none') return { mode: 'none' }
    if (choice.type === 'auto') return { mode: 'auto' }
    return undefined
  },
  removeTools(body, names) {
    filterArray(body, 'tools', (t) => !(isRecord(t) && typeof t.name === 'string' && names.has(t.name)))
    const choice = this.toolChoice(body)
    if (body.tools === undefined || (choice?.mode === 'tool' && names.has(choice.name ?? ''))) {
      delete body.tool_choice
    }
  },
  removeToolCall(body, id) {
    const content = arrayOf(body.content).filter(
      (b) => !(isRecord(b) && b.type === 'tool_use' && b.id === id),
    )
    const left = content.filter((b) => isRecord(b) && b.type === 'tool_use').length
    if (content.length === 0) content.push({ type: 'text', text: '' })
    body.content = content
    if (left === 0 && body.stop_reason === 'tool_use') body.stop_reason = 'end_turn'
    return left === 0
  },
  withFeedback: feedbackTurns,
}

/** OpenAI Responses: flat tools, `function_call` output items. */
export const RESPONSES_TOOL_OPS: ToolOps = {
  toolChoice(body) {
    const choice = body.tool_choice
    if (choice === 'auto' || choice === 'none' || choice === 'required') return { mode: choice }
    if (isRecord(choice) && choice.type === 'function' && typeof choice.name === 'string')
      return { mode: 'tool', name: choice.name }
    return undefined
  },
  removeTools(body, names) {
    const nameOf = (t: unknown) =>
      isRecord(t) ? (typeof t.name === 'string' ? t.name : typeof t.type === 'string' ? t.type : '') : ''
    filterArray(body, 'tools', (t) => !names.has(nameOf(t)))
    const choice = this.toolChoice(body)
    if (body.tools === undefined || (choice?.mode === 'tool' && names.has(choice.name ?? ''))) {
      delete body.tool_choice
      if (body.tools === undefined) delete body.parallel_tool_calls
    }
  },
  removeToolCall(body, id) {
    const output = arrayOf(body.output).filter(
      (item) => !(isRecord(item) && item.type === 'function_call' && item.call_id === id),
    )
    body.output = output
    return !output.some((item) => isRecord(item) && item.type === 'function_call')
  },
  withFeedback(body, answerText, feedback) {
    const input =
      typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arrayOf(body.input)
    return {
      ...body,
      input: [
        ...input,
        { role: 'assistant', content: answerText || '(empty answer)' },
        { role: 'user', content: feedback },
      ],
    }
  },
}

/**
 * The Exchange over parsed request data, with the vendor's tool operations.
 * A class rather than an object literal with a getter and a conditional
 * spread: V8 builds such a literal property by property in its runtime
 * (~6 µs-equivalent of instructions per call under callgrind); an instance
 * gets its shape at once and its getter and method from the prototype.
 */
class BoundExchange implements Exchange {
  readonly vendor: Exchange['vendor']
  readonly model: string
  readonly stream: boolean
  readonly messages: Exchange['messages']
  declare readonly unscanned?: Exchange['unscanned']
  readonly toolChoice: Exchange['toolChoice']
  readonly #body: Record<string, unknown>
  /** Someone took `body` (and may have changed it directly). */
  #bodyTaken = false
  /** `narrowTools` removed tools from the body. */
  #narrowed = false
  #tools: readonly ToolDefinition[]
  readonly #ops: ToolOps

  constructor(data: ExchangeData, ops: ToolOps) {
    this.vendor = data.vendor
    this.model = data.model
    this.stream = data.stream
    this.messages = data.messages
    // Present only when the adapter gave one (as the literal's conditional spread did).
    if (data.unscanned) (this as { unscanned?: Exchange['unscanned'] }).unscanned = data.unscanned
    this.#body = data.body
    this.toolChoice = ops.toolChoice(data.body)
    this.#tools = data.tools
    this.#ops = ops
  }

  /** The body, writable: taking it counts as a possible change ({@link requestUnchanged}). */
  get body(): Record<string, unknown> {
    this.#bodyTaken = true
    return this.#body
  }

  get bodyView(): Readonly<Record<string, unknown>> {
    return this.#body
  }

  get tools(): readonly ToolDefinition[] {
    return this.#tools
  }

  narrowTools(keep: (tool: ToolDefinition) => boolean): string[] {
    const removed = this.#tools.filter((t) => !keep(t)).map((t) => t.name)
    if (removed.length === 0) return []
    this.#tools = this.#tools.filter((t) => keep(t))
    this.#narrowed = true
    this.#ops.removeTools(this.#body, new Set(removed))
    return removed
  }

  /** See {@link requestUnchanged}. */
  unchanged(): boolean {
    if (this.#bodyTaken || this.#narrowed) return false
    for (const message of this.messages) for (const part of message.parts) if (part.edited) return false
    return true
  }
}

/**
 * True when nothing can have changed the request body since the adapter
 * parsed it: `exchange` is the host's own, nobody took its writable `body`
 * (steps read `bodyView`), no text part was edited (tool-call arguments and
 * tool results are parts too) and no tool was narrowed away. False for any
 * other Exchange.
 */
export function requestUnchanged(exchange: Exchange): boolean {
  return exchange instanceof BoundExchange && exchange.unchanged()
}

/** The Exchange over parsed request data, with the vendor's tool operations. */
export function bindExchange(data: ExchangeData, ops: ToolOps): Exchange {
  return new BoundExchange(data, ops)
}

/** The Answer over parsed answer data (a class for the same reason as {@link BoundExchange}). */
class BoundAnswer implements Answer {
  readonly vendor: Answer['vendor']
  readonly model: string
  readonly message: Answer['message']
  readonly usage: Answer['usage']
  readonly body: Record<string, unknown>
  #finishReason: string | undefined
  readonly #ops: ToolOps

  constructor(data: AnswerData, ops: ToolOps) {
    this.vendor = data.vendor
    this.model = data.model
    this.message = data.message
    this.usage = data.usage
    this.body = data.body
    this.#finishReason = data.finishReason
    this.#ops = ops
  }

  get finishReason(): string | undefined {
    return this.#finishReason
  }

  removeToolCall(id: string): void {
    const calls = this.message.toolCalls as Answer['message']['toolCalls'][number][]
    const k = calls.findIndex((c) => c.id === id)
    if (k < 0) return
    const [call] = calls.splice(k, 1)
    const parts = this.message.parts as unknown[]
    const p = parts.indexOf(call?.arguments)
    if (p >= 0) parts.splice(p, 1)
    if (this.#ops.removeToolCall(this.body, id)) {
      this.#finishReason =
        this.vendor === 'anthropic' ? 'end_turn' : this.vendor === 'openai' ? 'stop' : 'completed'
    }
  }
}

/** The Answer over parsed answer data, with the vendor's tool-call removal. */
export function bindAnswer(data: AnswerData, ops: ToolOps): Answer {
  return new BoundAnswer(data, ops)
}
