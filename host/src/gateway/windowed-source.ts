import { StringDecoder } from 'node:string_decoder'
import type { Vendor } from '@gov/core'
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser'
import { isRecord } from '../adapters/json-values.js'

/**
 * Reads an upstream SSE answer as it arrives and keeps what windowed release
 * needs: the answer's head (ids, model; for the opening events) and the text
 * of its first text part (choice 0, block 0, output 0 content 0). Anything
 * else that shows up — a tool call, a second choice, a refusal, thinking, a
 * citation, an error — stops the windows: the rest of the answer is held back
 * and released whole once every check ran on it, as in held mode.
 */
export class WindowSource {
  readonly #decoder = new StringDecoder('utf8')
  readonly #parser: EventSourceParser
  /** OpenAI chunk head, Anthropic `message`, Responses `response`. */
  head: Record<string, unknown> | undefined
  /** Responses: the id of output item 0. */
  itemId: unknown
  /** The first text part so far. */
  text = ''
  /** The first event of the first text part was seen. */
  started = false
  /** Why windows stopped; undefined while they may go on. */
  stopped: string | undefined

  constructor(private readonly vendor: Vendor) {
    this.#parser = createParser({ onEvent: (event) => this.#onEvent(event) })
  }

  /** True while new text may still be released in windows. */
  get windowable(): boolean {
    return this.started && this.stopped === undefined
  }

  feed(chunk: Buffer): void {
    if (this.stopped !== undefined) return
    this.#parser.feed(this.#decoder.write(chunk))
  }

  #stop(reason: string): undefined {
    this.stopped ??= reason
    return undefined
  }

  #onEvent(event: EventSourceMessage): undefined {
    if (this.stopped !== undefined) return
    if (event.data.trim() === '[DONE]') return
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      return this.#stop('an event that is not JSON')
    }
    if (!isRecord(data)) return this.#stop('an event that is not an object')
    if (this.vendor === 'anthropic') this.#anthropic(data, event.event)
    else if (this.vendor === 'openai-responses') this.#responses(data, event.event)
    else this.#openai(data)
  }

  #openai(chunk: Record<string, unknown>): undefined {
    if (chunk.error != null) return this.#stop('an error')
    if (!this.head) {
      const head: Record<string, unknown> = {}
      for (const field of ['id', 'created', 'model', 'service_tier', 'system_fingerprint'])
        if (chunk[field] !== undefined) head[field] = chunk[field]
      this.head = head
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) return this.#stop('more than one choice')
      const delta = isRecord(choice.delta) ? choice.delta : {}
      if (delta.tool_calls != null || delta.function_call != null) return this.#stop('a tool call')
      if (typeof delta.refusal === 'string' && delta.refusal) return this.#stop('a refusal')
      if (delta.audio != null) return this.#stop('audio')
      if (typeof delta.content === 'string') {
        this.started = true
        this.text += delta.content
      }
    }
  }

  #anthropic(data: Record<string, unknown>, name: string | undefined): undefined {
    const type = typeof data.type === 'string' ? data.type : name
    if (type === 'message_start') {
      if (isRecord(data.message)) this.head = data.message
    } else if (type === 'content_block_start') {
      const block = isRecord(data.content_block) ? data.content_block : {}
      if (data.index !== 0 || block.type !== 'text' || block.text) return this.#stop(`a ${block.type} block`)
      if (Array.isArray(block.citations) && block.citations.length) return this.#stop('citations')
      if (this.head) this.started = true
    } else if (type === 'content_block_delta') {
      const delta = isRecord(data.delta) ? data.delta : {}
      if (data.index !== 0 || delta.type !== 'text_delta' || typeof delta.text !== 'string')
        return this.#stop(`a ${String(delta.type)}`)
      this.text += delta.text
    } else if (type === 'error') this.#stop('an error')
  }

  #responses(data: Record<string, unknown>, name: string | undefined): undefined {
    const type = typeof data.type === 'string' ? data.type : name
    if (type === 'response.created') {
      if (isRecord(data.response)) this.head = data.response
    } else if (type === 'response.output_item.added') {
      const item = isRecord(data.item) ? data.item : {}
      if (data.output_index !== 0 || item.type !== 'message') return this.#stop(`a ${String(item.type)} item`)
      this.itemId = item.id
    } else if (type === 'response.content_part.added') {
      const part = isRecord(data.part) ? data.part : {}
      if (data.output_index !== 0 || data.content_index !== 0 || part.type !== 'output_text' || part.text)
        return this.#stop(`a ${String(part.type)} part`)
      if (this.head && this.itemId !== undefined) this.started = true
    } else if (type === 'response.output_text.delta') {
      if (data.output_index !== 0 || data.content_index !== 0 || typeof data.delta !== 'string')
        return this.#stop('a second text')
      this.text += data.delta
    } else if (
      type === 'error' ||
      type === 'response.failed' ||
      type?.startsWith('response.refusal') ||
      type?.startsWith('response.function_call')
    ) {
      this.#stop(type)
    }
  }
}
