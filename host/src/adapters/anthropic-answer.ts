import type { Exchange, ToolCall, Usage } from '@gov/core'
import { JSON_CODEC, TextPart } from '@gov/core'
import type { AnswerData } from './adapter.js'
import { invalidAnswer } from './adapter-errors.js'
import { makeAnswerId } from './answer-ids.js'
import { isRecord, tokenUsage } from './json-values.js'

/**
 * Build the Answer over a complete Anthropic `message` body: its text blocks
 * and tool_use blocks (input bound through JSON_CODEC). Thinking blocks are
 * left alone: they are signed, and an edit would make the next turn fail.
 */
export function parseAnthropicAnswer(body: Record<string, unknown>, exchange: Exchange): AnswerData {
  const content = body.content
  if (!Array.isArray(content)) throw invalidAnswer('content', 'must be an array')
  const parts: TextPart[] = []
  const toolCalls: ToolCall[] = []
  content.forEach((block, j) => {
    const path = `content[${j}]`
    if (!isRecord(block)) throw invalidAnswer(path, 'must be an object')
    if (block.type === 'text' && typeof block.text === 'string') {
      parts.push(
        new TextPart({
          id: `${path}.text`,
          messageIndex: 0,
          source: 'assistant',
          kind: 'text',
          holder: block,
          key: 'text',
        }),
      )
    } else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string' || !isRecord(block.input)) {
        throw invalidAnswer(path, 'must be a tool_use block with id, name and input')
      }
      const part = new TextPart({
        id: `${path}.input`,
        messageIndex: 0,
        source: 'assistant',
        kind: 'tool_arguments',
        holder: block,
        key: 'input',
        codec: JSON_CODEC,
      })
      parts.push(part)
      toolCalls.push({ id: block.id, name: block.name, arguments: part })
    }
  })
  return {
    vendor: 'anthropic',
    model: typeof body.model === 'string' ? body.model : exchange.model,
    message: { index: 0, role: 'assistant', source: 'assistant', parts, toolCalls, toolResults: [] },
    finishReason: typeof body.stop_reason === 'string' ? body.stop_reason : undefined,
    usage: readUsage(body.usage),
    body,
  }
}

/**
 * Anthropic's `input_tokens` excludes cache reads (`cache_read_input_tokens`)
 * and writes (`cache_creation_input_tokens`); gov's input count is the total,
 * so both are added to it and also kept apart for pricing. Writes to the
 * one-hour cache (`cache_creation.ephemeral_1h_input_tokens`) cost more than
 * writes to the five-minute one and are kept apart too.
 */
function readUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined
  const read = usage.cache_read_input_tokens
  const write = usage.cache_creation_input_tokens
  let input = usage.input_tokens
  if (typeof input === 'number') {
    if (typeof read === 'number') input += read
    if (typeof write === 'number') input += write
  }
  const creation = usage.cache_creation
  const write1h = isRecord(creation) ? creation.ephemeral_1h_input_tokens : undefined
  return tokenUsage(input, usage.output_tokens, read, write, write1h)
}

/** A complete `message` carrying `text`, for a step's `respond` verdict (no tokens were used). */
export function buildAnthropicTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
  return {
    id: makeAnswerId('msg_gov', 20),
    type: 'message',
    role: 'assistant',
    model: exchange.model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
  }
}
