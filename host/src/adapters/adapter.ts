import type { IncomingHttpHeaders } from 'node:http'
import type { Answer, Exchange, Vendor } from '@gov/core'

/** An Exchange as an adapter parses it; the host binds the tool operations ({@link bindExchange}). */
export type ExchangeData = Omit<Exchange, 'narrowTools' | 'toolChoice'>
/** An Answer as an adapter parses it; the host binds the tool-call removal ({@link bindAnswer}). */
export type AnswerData = Omit<Answer, 'removeToolCall'>

/** Options for re-chunking a complete answer as SSE. */
export interface SseOptions {
  /** OpenAI `stream_options.include_usage`: send a final chunk with `usage` and empty `choices`. */
  includeUsage: boolean
}

/**
 * One vendor's wire format. The host's request walk is vendor-neutral; all
 * format knowledge lives behind this interface (`openai-adapter.ts`,
 * `anthropic-adapter.ts`).
 */
export interface VendorAdapter {
  readonly vendor: Vendor
  /** Path of the endpoint on the upstream, appended to the provider's base URL (`/chat/completions`, `/v1/messages`). */
  readonly upstreamPath: string

  /**
   * Validate a parsed JSON request body and build the Exchange over it. Text
   * parts are bound to the body, so edits write through. Throws a GovError with
   * status 400 and code `invalid_request` (message names the field) when the
   * body is not a valid request of this vendor.
   */
  parseRequest(body: unknown): Exchange

  /** Build the Answer over a complete non-streaming answer body (parts bound to the body). */
  parseAnswer(body: Record<string, unknown>, exchange: Exchange): Answer

  /**
   * Reassemble the complete non-streaming answer body from the full text of an
   * upstream SSE stream (deltas, tool-call argument fragments, usage). Throws a
   * GovError 502 `upstream_invalid_stream` when the stream is broken; an error
   * event inside the stream becomes a GovError carrying the vendor's error.
   */
  reassembleStream(sse: string): Record<string, unknown>

  /** Render a complete answer body as SSE in this vendor's own event sequence. */
  toSse(body: Record<string, unknown>, options: SseOptions): string

  /** A complete answer body carrying `text`, for a step's `respond` verdict. */
  buildTextAnswer(text: string, exchange: Exchange): Record<string, unknown>

  /** The vendor's error body for a gateway error (`code` is gov's stable code). */
  errorBody(status: number, code: string, message: string): Record<string, unknown>

  /**
   * Headers for the upstream call: the provider key in this vendor's auth header,
   * content type, and the vendor headers of the caller that must pass through
   * (`anthropic-version`, `anthropic-beta`, `openai-organization`, `openai-project`, …).
   * Never forwards the caller's own Authorization or x-api-key.
   */
  upstreamHeaders(incoming: IncomingHttpHeaders, apiKey: string): Record<string, string>

  /**
   * Remove the answer's second copies of its text that steps do not see or
   * edit (OpenAI `logprobs` tokens, Anthropic `citations[].cited_text`). Called
   * when a step edited the answer, so a redacted value cannot leak through them.
   */
  dropUnscannedText(body: Record<string, unknown>): void

  /** Body of a retry: the conversation plus the refused answer's text and the feedback for the model. */
  withFeedback(body: Record<string, unknown>, answerText: string, feedback: string): Record<string, unknown>

  /** Whether the request asks for usage in the streamed answer (OpenAI `stream_options.include_usage`). */
  sseOptions(exchange: Exchange): SseOptions
}
