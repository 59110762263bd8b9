import type { IncomingHttpHeaders } from 'node:http'
import type { Answer, Exchange } from '@gov/core'
import type { SseOptions, VendorAdapter } from './adapter.js'
import { isRecord } from './json-values.js'
import { buildOpenAiTextAnswer, parseOpenAiAnswer } from './openai-answer.js'
import { parseOpenAiRequest } from './openai-request.js'
import { renderOpenAiSse } from './openai-sse.js'
import { reassembleOpenAiStream } from './openai-stream.js'
import { bindAnswer, bindExchange, OPENAI_TOOL_OPS } from './tool-ops.js'
import { passHeaders } from './upstream-headers.js'

/** OpenAI headers a caller may set that the upstream must see. */
const PASSED_HEADERS = ['openai-organization', 'openai-project', 'openai-beta'] as const

/** OpenAI error `type` per HTTP status. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  429: 'rate_limit_error',
}

/** The OpenAI Chat Completions format (`POST /v1/chat/completions`). */
export class OpenAiAdapter implements VendorAdapter {
  readonly vendor = 'openai' as const
  /** The OpenAI base URL already ends in `/v1`. */
  readonly upstreamPath = '/chat/completions'

  parseRequest(body: unknown): Exchange {
    return bindExchange(parseOpenAiRequest(body), OPENAI_TOOL_OPS)
  }

  parseAnswer(body: Record<string, unknown>, exchange: Exchange): Answer {
    return bindAnswer(parseOpenAiAnswer(body, exchange), OPENAI_TOOL_OPS)
  }

  reassembleStream(sse: string): Record<string, unknown> {
    return reassembleOpenAiStream(sse)
  }

  toSse(body: Record<string, unknown>, options: SseOptions): string {
    return renderOpenAiSse(body, options)
  }

  buildTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
    return buildOpenAiTextAnswer(text, exchange)
  }

  errorBody(status: number, code: string, message: string): Record<string, unknown> {
    const type = status >= 500 ? 'api_error' : (ERROR_TYPES[status] ?? 'invalid_request_error')
    return { error: { message, type, param: null, code } }
  }

  upstreamHeaders(incoming: IncomingHttpHeaders, apiKey: string): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
    }
    passHeaders(incoming, PASSED_HEADERS, headers)
    return headers
  }

  dropUnscannedText(body: Record<string, unknown>): void {
    for (const choice of Array.isArray(body.choices) ? body.choices : []) {
      if (isRecord(choice) && choice.logprobs != null) choice.logprobs = null
    }
  }

  withFeedback(body: Record<string, unknown>, answerText: string, feedback: string): Record<string, unknown> {
    return OPENAI_TOOL_OPS.withFeedback(body, answerText, feedback)
  }

  sseOptions(exchange: Exchange): SseOptions {
    const streamOptions = (exchange.bodyView ?? exchange.body).stream_options
    return { includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true }
  }
}
