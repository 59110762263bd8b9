import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { renderResponsesSse } from '../adapters/responses-stream.js'
import {
  anthropicEchoBody,
  anthropicEchoSse,
  type EchoInput,
  openAiEchoBody,
  openAiEchoSse,
} from './mock-echo.js'
import { findDirective, lastUserText, type MockVendor, wantsStream, wantsUsage } from './mock-request.js'
import { loadTranscripts, type Transcript } from './transcripts.js'

/** An answer queued with {@link MockProvider.enqueue}; the next request (either endpoint) gets it. */
export interface MockResponse {
  /** HTTP status; 200 unless given (a transcript brings its own). */
  status?: number
  /** Extra response headers. */
  headers?: Record<string, string>
  /** A JSON body. */
  json?: unknown
  /** A raw SSE body, sent as `text/event-stream`. */
  sse?: string
  /** Wait this long before answering (timeouts, slow upstreams). */
  delayMs?: number
  /** Destroy the connection instead of answering; after writing `sse` if given (a stream cut short). */
  destroy?: true
  /** Replay a recorded transcript (`openai/tool_call`): its `.sse` when the request streams, else its `.json`. */
  transcript?: string
}

/** A request the mock received. */
export interface MockRequest {
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown
  /** The request id header the answer carried (with `requestIds`), unless the answer brought its own. */
  requestId?: string
}

/** Options of {@link startMockProvider}. */
export interface MockProviderOptions {
  /** When set, requests must carry this provider key (`authorization: Bearer` / `x-api-key`), else they get the recorded 401. */
  apiKey?: string
  /** Keep received requests in `requests` (default true; turn off for load benchmarks so memory stays flat). */
  recordRequests?: boolean
  /**
   * Send a request id header with every answer, as the providers do: OpenAI's
   * `x-request-id` (chat completions, Responses), Anthropic's `request-id`;
   * `req_mock_<n>`. A queued answer's or a transcript's own header wins.
   */
  requestIds?: boolean
}

/** A running mock provider. */
export interface MockProvider {
  /** `http://127.0.0.1:<port>`. */
  url: string
  /** Base URL for OpenAI clients (`url + '/v1'`). */
  openaiBaseUrl: string
  /** Base URL for Anthropic clients (`url`). */
  anthropicBaseUrl: string
  /** Requests received, in order. */
  requests: MockRequest[]
  /** Queue an answer for the next request. Throws when `transcript` names no recorded transcript. */
  enqueue(response: MockResponse): void
  close(): Promise<void>
}

const VENDOR_PATHS: Readonly<Record<string, MockVendor>> = {
  '/v1/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }

/**
 * Start a provider on 127.0.0.1 (port 0) that speaks both vendors' endpoints:
 * `POST /v1/chat/completions` and `POST /v1/messages`. It answers with the next
 * enqueued response if any; else with the recorded transcript a `[mock:<name>]`
 * directive in the last user text names (SSE when the request streams);
 * else by echoing the last user text (`[mock:tool_echo]`: as a `send_message`
 * tool call). Transcripts are read once; answering does no file I/O.
 */
export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const transcripts = await loadTranscripts()
  const requests: MockRequest[] = []
  const queue: MockResponse[] = []
  const record = options.recordRequests ?? true
  let answered = 0

  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => {
      answer(req, res, raw).catch((error: unknown) => {
        if (!res.headersSent) writeJson(res, 500, { error: { message: String(error), type: 'mock_error' } })
        else res.destroy()
      })
    })
  })

  async function answer(req: IncomingMessage, res: ServerResponse, raw: string) {
    const path = (req.url ?? '/').split('?')[0]
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {
      // Kept as text: tests may check what a broken body looked like.
    }
    let requestId: string | undefined
    if (options.requestIds) {
      requestId = `req_mock_${++answered}`
      res.setHeader(path === '/v1/messages' ? 'request-id' : 'x-request-id', requestId)
    }
    if (record) requests.push({ path, headers: req.headers, body, ...(requestId ? { requestId } : {}) })
    if (req.method === 'GET' && path === '/v1/models') {
      writeJson(res, 200, modelList(req.headers['anthropic-version'] !== undefined))
      return
    }
    if (req.method === 'POST' && path === '/v1/responses') {
      await answerResponses(req, res, body)
      return
    }
    const vendor = VENDOR_PATHS[path]
    if (!vendor || req.method !== 'POST') {
      writeJson(
        res,
        404,
        errorBody(vendor ?? 'openai', 404, 'not_found_error', `no route for ${req.method} ${path}`),
      )
      return
    }
    if (options.apiKey !== undefined && !hasKey(vendor, req.headers, options.apiKey)) {
      replay(res, transcripts.get(`${vendor}/error_401`)!, false)
      return
    }
    const parsed =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : undefined
    const stream = parsed ? wantsStream(parsed) : false
    const queued = queue.shift()
    if (queued) {
      await answerQueued(res, queued, stream)
      return
    }
    if (!parsed) {
      writeJson(res, 400, errorBody(vendor, 400, 'invalid_request_error', 'body is not a JSON object'))
      return
    }
    const text = lastUserText(vendor, parsed)
    const directive = findDirective(text)
    if (directive !== undefined && directive !== 'tool_echo') {
      const transcript = transcripts.get(`${vendor}/${directive}`)
      if (transcript) replay(res, transcript, stream)
      else
        writeJson(
          res,
          400,
          errorBody(vendor, 400, 'invalid_request_error', `unknown mock directive ${directive}`),
        )
      return
    }
    const input: EchoInput = {
      model: typeof parsed.model === 'string' ? parsed.model : 'mock-model',
      text,
      tool: directive === 'tool_echo',
      requestChars: raw.length,
    }
    if (vendor === 'openai') {
      if (stream) writeSse(res, 200, openAiEchoSse(input, wantsUsage(parsed)))
      else writeJson(res, 200, openAiEchoBody(input))
    } else if (stream) writeSse(res, 200, anthropicEchoSse(input))
    else writeJson(res, 200, anthropicEchoBody(input))
  }

  /** The Responses API: queued answers, else an echo of the last user text (a `send_message` call with `[mock:tool_echo]`). */
  async function answerResponses(req: IncomingMessage, res: ServerResponse, body: unknown) {
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      writeJson(res, 401, errorBody('openai', 401, 'invalid_request_error', 'Incorrect API key provided'))
      return
    }
    const parsed =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {}
    const stream = wantsStream(parsed)
    const queued = queue.shift()
    if (queued) {
      await answerQueued(res, queued, stream)
      return
    }
    const answer = responsesEchoBody(parsed)
    if (stream) writeSse(res, 200, renderResponsesSse(answer))
    else writeJson(res, 200, answer)
  }

  async function answerQueued(res: ServerResponse, queued: MockResponse, stream: boolean) {
    if (queued.delayMs) await sleep(queued.delayMs)
    if (queued.destroy) {
      if (queued.sse !== undefined) {
        res.writeHead(queued.status ?? 200, { ...SSE_HEADERS, ...queued.headers })
        res.write(queued.sse, () => res.destroy())
      } else res.destroy()
      return
    }
    if (queued.transcript !== undefined) replay(res, transcripts.get(queued.transcript)!, stream)
    else if (queued.sse !== undefined) writeSse(res, queued.status ?? 200, queued.sse, queued.headers)
    else writeJson(res, queued.status ?? 200, queued.json ?? {}, queued.headers)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    enqueue(response) {
      if (response.transcript !== undefined && !transcripts.has(response.transcript)) {
        throw new Error(`no recorded transcript ${response.transcript}`)
      }
      queue.push(response)
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
  }
}

function hasKey(vendor: MockVendor, headers: IncomingHttpHeaders, apiKey: string): boolean {
  return vendor === 'openai' ? headers.authorization === `Bearer ${apiKey}` : headers['x-api-key'] === apiKey
}

/** A streaming request gets the `.sse` of a transcript when there is one; errors exist only as JSON. */
function replay(res: ServerResponse, transcript: Transcript, stream: boolean) {
  const useSse = transcript.sse !== undefined && (stream || transcript.json === undefined)
  if (useSse) writeSse(res, 200, transcript.sse!)
  else {
    const json = transcript.json!
    writeText(res, json.status, transcript.jsonText!, { 'content-type': 'application/json', ...json.headers })
  }
}

function errorBody(
  vendor: MockVendor,
  status: number,
  type: string,
  message: string,
): Record<string, unknown> {
  return vendor === 'anthropic'
    ? { type: 'error', error: { type, message } }
    : { error: { message, type, param: null, code: status === 404 ? 'not_found' : null } }
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  writeText(res, status, JSON.stringify(body), { 'content-type': 'application/json', ...headers })
}

function writeText(res: ServerResponse, status: number, text: string, headers: Record<string, string>) {
  res.writeHead(status, { 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** Written in one piece without a length, so it goes out chunked, as providers send streams. */
function writeSse(res: ServerResponse, status: number, sse: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...SSE_HEADERS, ...headers })
  res.write(sse)
  res.end()
}

/** The last user text of a Responses request: `input` as a string, or the last user message's text parts. */
function responsesUserText(body: Record<string, unknown>): string {
  if (typeof body.input === 'string') return body.input
  const items = Array.isArray(body.input) ? body.input : []
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as Record<string, unknown> | null
    if (!item || typeof item !== 'object') continue
    if (item.type === 'function_call_output' && typeof item.output === 'string') return item.output
    if (item.role !== 'user') continue
    if (typeof item.content === 'string') return item.content
    if (Array.isArray(item.content)) {
      return item.content
        .map((p) =>
          p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
            ? (p as { text: string }).text
            : '',
        )
        .join('\n')
    }
  }
  return ''
}

/** The echo answer of the Responses API. */
function responsesEchoBody(body: Record<string, unknown>): Record<string, unknown> {
  const text = responsesUserText(body)
  const id = randomBytes(8).toString('hex')
  const item =
    findDirective(text) === 'tool_echo'
      ? {
          id: `fc_${id}`,
          type: 'function_call',
          status: 'completed',
          call_id: `call_${id}`,
          name: 'send_message',
          arguments: JSON.stringify({ text }),
        }
      : {
          id: `msg_${id}`,
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        }
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: typeof body.model === 'string' ? body.model : 'mock-model',
    output: [item],
    usage: {
      input_tokens: Math.ceil(text.length / 4),
      output_tokens: Math.ceil(text.length / 4),
      total_tokens: Math.ceil(text.length / 2),
    },
  }
}

/** The models the mock serves: `GET /v1/models` in the OpenAI format, or Anthropic's when it sends `anthropic-version`. */
export const MOCK_MODELS = {
  openai: ['gpt-4o-mini', 'gpt-4o', 'o3-mini'],
  anthropic: ['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-opus-4-1'],
} as const

function modelList(anthropic: boolean): Record<string, unknown> {
  if (anthropic) {
    const data = MOCK_MODELS.anthropic.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2026-01-01T00:00:00Z',
    }))
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }
  }
  return {
    object: 'list',
    data: MOCK_MODELS.openai.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'mock' })),
  }
}
