import type { IncomingHttpHeaders } from 'node:http'
import type { Answer, Exchange } from '@gov/core'
import type { SseOptions, VendorAdapter } from './adapter.js'
import { isRecord } from './json-values.js'
import { OpenAiAdapter } from './openai-adapter.js'
import { buildResponsesTextAnswer, parseResponsesAnswer } from './responses-answer.js'
import { parseResponsesRequest } from './responses-request.js'
import { reassembleResponsesStream, renderResponsesSse } from './responses-stream.js'
import { bindAnswer, bindExchange, RESPONSES_TOOL_OPS } from './tool-ops.js'

/**
 * The OpenAI Responses format (`POST /v1/responses`), governed by the same
 * chain as Chat Completions. Errors and upstream headers are OpenAI's.
 */
export class ResponsesAdapter implements VendorAdapter {
  readonly vendor = 'openai-responses' as const
  /** The OpenAI base URL already ends in `/v1`. */
  readonly upstreamPath = '/responses'
  readonly #openai = new OpenAiAdapter()

  parseRequest(body: unknown): Exchange {
    return bindExchange(parseResponsesRequest(body), RESPONSES_TOOL_OPS)
  }

  parseAnswer(body: Record<string, unknown>, exchange: Exchange): Answer {
    return bindAnswer(parseResponsesAnswer(body, exchange), RESPONSES_TOOL_OPS)
  }

  reassembleStream(sse: string): Record<string, unknown> {
    return reassembleResponsesStream(sse)
  }

  toSse(body: Record<string, unknown>, _options: SseOptions): string {
    return renderResponsesSse(body)
  }

  buildTextAnswer(text: string, exchange: Exchange): Record<string, unknown> {
    return buildResponsesTextAnswer(text, exchange)
  }

  errorBody(status: number, code: string, message: string): Record<string, unknown> {
    return this.#openai.errorBody(status, code, message)
  }

  upstreamHeaders(incoming: IncomingHttpHeaders, apiKey: string): Record<string, string> {
    return this.#openai.upstreamHeaders(incoming, apiKey)
  }

  /** Drop `logprobs` of output text (second copies of text no step saw). */
  dropUnscannedText(body: Record<string, unknown>): void {
    for (const item of Array.isArray(body.output) ? body.output : []) {
      if (!isRecord(item) || !Array.isArray(item.content)) continue
      for (const part of item.content) if (isRecord(part) && part.logprobs != null) part.logprobs = []
    }
  }

  withFeedback(body: Record<string, unknown>, answerText: string, feedback: string): Record<string, unknown> {
    return RESPONSES_TOOL_OPS.withFeedback(body, answerText, feedback)
  }

  sseOptions(_exchange: Exchange): SseOptions {
    return { includeUsage: true }
  }
}
