import type { Exchange, ToolCall, Usage } from '@gov/core'
import { TextPart } from '@gov/core'
import type { AnswerData } from './adapter.js'
import { invalidAnswer } from './adapter-errors.js'
import { makeAnswerId } from './answer-ids.js'
import { isAbsent, isRecord, tokenUsage } from './json-values.js'
import { bindOpenAiFunctionCall, bindOpenAiToolCall } from './openai-tool-calls.js'

/** The text fields of an answer message, in the order their parts are made. */
const TEXT_KEYS = ['content', 'refusal'] as const

/**
 * Build the Answer over a complete `chat.completion` body. The parts of every
 * choice land in the one answer message: a caller may use any choice, so each
 * is scanned and edited, not only the first.
 */
export function parseOpenAiAnswer(body: Record<string, unknown>, exchange: Exchange): AnswerData {
  const choices = body.choices
  if (!Array.isArray(choices)) throw invalidAnswer('choices', 'must be an array')
  const parts: TextPart[] = []
  const toolCalls: ToolCall[] = []
  for (let c = 0; c < choices.length; c++) {
    const choice: unknown = choices[c]
    const path = `choices[${c}].message`
    if (!isRecord(choice) || !isRecord(choice.message)) throw invalidAnswer(path, 'must be an object')
    const message = choice.message
    for (const key of TEXT_KEYS) {
      if (typeof message[key] !== 'string') continue
      parts.push(
        new TextPart({
          id: `${path}.${key}`,
          messageIndex: 0,
          source: 'assistant',
          kind: 'text',
          holder: message,
          key,
        }),
      )
    }
    if (Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((raw, k) => {
        const call = bindOpenAiToolCall(raw, `${path}.tool_calls[${k}]`, 0, 'assistant', invalidAnswer)
        if (call) toolCalls.push(call)
      })
    }
    if (!isAbsent(message.function_call)) {
      toolCalls.push(
        bindOpenAiFunctionCall(message.function_call, `${path}.function_call`, 0, 'assistant', invalidAnswer),
      )
    }
  }
  for (const call of toolCalls) parts.push(call.arguments)
  const first = isRecord(choices[0]) ? choices[0] : {}
  return {
    vendor: 'openai',
    model: typeof body.model === 'string' ? body.model : exchange.model,
    message: { index: 0, role: 'assistant', source: 'assistant', parts, toolCalls, toolResults: [] },
    finishReason: typeof first.finish_reason === 'string' ? first.finish_reason : undefined,
    usage: readUsage(body.usage),
    body,
  }
}

function readUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined
  // prompt_tokens includes prompt_tokens_details.cached_tokens.
  const details = usage.prompt_tokens_details
  return tokenUsage(
    usage.prompt_tokens,
    usage.completion_tokens,
    isRecord(details) ? details.cached_tokens : undefined,
  )
}

/** A complete `chat.completion` carrying `text`, for a step's `respond` verdict (no tokens were used). */
export function buildOpenAiTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
  return {
    id: makeAnswerId('chatcmpl-', 29),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: exchange.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    system_fingerprint: null,
  }
}
