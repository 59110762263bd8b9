import type { IncomingHttpHeaders } from 'node:http'
import type { Answer, Exchange } from '@gov/core'
import type { SseOptions, VendorAdapter } from './adapter.js'
import { buildAnthropicTextAnswer, parseAnthropicAnswer } from './anthropic-answer.js'
import { parseAnthropicRequest } from './anthropic-request.js'
import { renderAnthropicSse } from './anthropic-sse.js'
import { reassembleAnthropicStream } from './anthropic-stream.js'
import { isRecord } from './json-values.js'
import { ANTHROPIC_TOOL_OPS, bindAnswer, bindExchange } from './tool-ops.js'
import { headerValue, passHeaders } from './upstream-headers.js'

/** The API version sent when the caller names none; the one every current SDK sends. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01'

/** Anthropic error `type` per HTTP status. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
}

/** The Anthropic Messages format (`POST /v1/messages`). */
export class AnthropicAdapter implements VendorAdapter {
  readonly vendor = 'anthropic' as const
  /** The Anthropic base URL has no `/v1`. */
  readonly upstreamPath = '/v1/messages'

  parseRequest(body: unknown): Exchange {
    return bindExchange(parseAnthropicRequest(body), ANTHROPIC_TOOL_OPS)
  }

  parseAnswer(body: Record<string, unknown>, exchange: Exchange): Answer {
    return bindAnswer(parseAnthropicAnswer(body, exchange), ANTHROPIC_TOOL_OPS)
  }

  reassembleStream(sse: string): Record<string, unknown> {
    return reassembleAnthropicStream(sse)
  }

  toSse(body: Record<string, unknown>, _options: SseOptions): string {
    return renderAnthropicSse(body)
  }

  buildTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
    return buildAnthropicTextAnswer(text, exchange)
  }

  errorBody(status: number, code: string, message: string): Record<string, unknown> {
    // 5xx other than 529 (timeouts included) are `api_error` in Anthropic's vocabulary.
    const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
    return { type: 'error', error: { type, message, code } }
  }

  upstreamHeaders(incoming: IncomingHttpHeaders, apiKey: string): Record<string, string> {
    const headers: Record<string, string> = {
      'x-api-key': apiKey,
      'anthropic-version': headerValue(incoming, 'anthropic-version') ?? DEFAULT_ANTHROPIC_VERSION,
      'content-type': 'application/json',
    }
    passHeaders(incoming, ['anthropic-beta'], headers)
    return headers
  }

  dropUnscannedText(body: Record<string, unknown>): void {
    for (const block of Array.isArray(body.content) ? body.content : []) {
      if (isRecord(block) && Array.isArray(block.citations)) delete block.citations
    }
  }

  withFeedback(body: Record<string, unknown>, answerText: string, feedback: string): Record<string, unknown> {
    return ANTHROPIC_TOOL_OPS.withFeedback(body, answerText, feedback)
  }

  sseOptions(_exchange: Exchange): SseOptions {
    // Anthropic always reports usage in message_start and message_delta.
    return { includeUsage: false }
  }
}
