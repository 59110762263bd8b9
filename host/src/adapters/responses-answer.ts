/**
 * A Responses API answer (`object: "response"`) as an Answer: the text of
 * `message` output items (`output_text`, `refusal`) and `function_call` items
 * as tool calls (arguments bound as JSON text); and the answer gov builds for a
 * step's ready text.
 */
import type { Exchange, ToolCall } from '@gov/core'
import { TextPart } from '@gov/core'
import type { AnswerData } from './adapter.js'
import { invalidAnswer } from './adapter-errors.js'
import { makeAnswerId } from './answer-ids.js'
import { isRecord, tokenUsage } from './json-values.js'

export function parseResponsesAnswer(body: Record<string, unknown>, exchange: Exchange): AnswerData {
  const output = body.output
  if (!Array.isArray(output)) throw invalidAnswer('output', 'must be an array')
  const parts: TextPart[] = []
  const toolCalls: ToolCall[] = []
  const speaker = { messageIndex: 0, source: 'assistant' as const }
  output.forEach((item, i) => {
    if (!isRecord(item)) throw invalidAnswer(`output[${i}]`, 'must be an object')
    if (item.type === 'message' && Array.isArray(item.content)) {
      item.content.forEach((part, j) => {
        if (!isRecord(part)) return
        const key = part.type === 'output_text' ? 'text' : part.type === 'refusal' ? 'refusal' : undefined
        if (key && typeof part[key] === 'string') {
          parts.push(
            new TextPart({
              id: `output[${i}].content[${j}].${key}`,
              ...speaker,
              kind: 'text',
              holder: part,
              key,
            }),
          )
        }
      })
    } else if (item.type === 'function_call') {
      if (
        typeof item.call_id !== 'string' ||
        typeof item.name !== 'string' ||
        typeof item.arguments !== 'string'
      ) {
        throw invalidAnswer(`output[${i}]`, 'must be a function_call with call_id, name and arguments')
      }
      const args = new TextPart({
        id: `output[${i}].arguments`,
        ...speaker,
        kind: 'tool_arguments',
        holder: item,
        key: 'arguments',
      })
      toolCalls.push({ id: item.call_id, name: item.name, arguments: args })
    }
  })
  for (const call of toolCalls) parts.push(call.arguments)
  const usage = isRecord(body.usage) ? body.usage : undefined
  return {
    vendor: 'openai-responses',
    model: typeof body.model === 'string' ? body.model : exchange.model,
    message: { index: 0, role: 'assistant', source: 'assistant', parts, toolCalls, toolResults: [] },
    finishReason: toolCalls.length ? 'tool_calls' : typeof body.status === 'string' ? body.status : undefined,
    // input_tokens includes input_tokens_details.cached_tokens.
    usage: usage
      ? tokenUsage(
          usage.input_tokens,
          usage.output_tokens,
          isRecord(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : undefined,
        )
      : undefined,
    body,
  }
}

/** A complete Responses answer carrying `text` (a step's ready answer). */
export function buildResponsesTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
  return {
    id: makeAnswerId('resp_', 24),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: exchange.model,
    output: [
      {
        id: makeAnswerId('msg_', 24),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  }
}
