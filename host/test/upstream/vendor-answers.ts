/** Vendors, endpoints and provider answers shared by the hostile-provider tests. */
import { renderAnthropicSse } from '../../src/adapters/anthropic-sse.js'
import { renderOpenAiSse } from '../../src/adapters/openai-sse.js'
import { renderResponsesSse } from '../../src/adapters/responses-stream.js'

export type Vendor = 'openai' | 'anthropic' | 'responses'
export const VENDORS: Vendor[] = ['openai', 'anthropic', 'responses']
export const PATHS: Record<Vendor, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  responses: '/v1/responses',
}

/** The vendor a provider request was sent for, by its path. */
export function vendorOfPath(url: string | undefined): Vendor {
  return url?.endsWith('/messages') ? 'anthropic' : url?.endsWith('/responses') ? 'responses' : 'openai'
}

/** The last user text of a provider request (Responses `input`, else the last message): the test's directive. */
export function userDirective(body: Record<string, unknown>): string {
  if (typeof body.input === 'string') return body.input
  const messages = body.messages as { content: string }[] | undefined
  return messages?.at(-1)?.content ?? ''
}

/** A provider's complete answer carrying `text`, in the vendor's JSON format. */
export function answerBody(vendor: Vendor, text: string): Record<string, unknown> {
  if (vendor === 'anthropic') {
    return {
      id: 'msg_hostile',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 7 },
    }
  }
  if (vendor === 'responses') {
    return {
      id: 'resp_hostile',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-4o-mini',
      output: [
        {
          type: 'message',
          id: 'msg_hostile',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
    }
  }
  return {
    id: 'chatcmpl-hostile',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  }
}

/** The same answer as the vendor's SSE stream. */
export function answerSse(vendor: Vendor, text: string): string {
  const body = answerBody(vendor, text)
  if (vendor === 'anthropic') return renderAnthropicSse(body)
  if (vendor === 'responses') return renderResponsesSse(body)
  return renderOpenAiSse(body, { includeUsage: false })
}
