import { GovError } from '@gov/core'
import { Pool } from 'undici'
import type { Provider } from './providers.js'

/** A complete upstream answer (streams are read to the end: gov scans before it releases a byte). */
export interface UpstreamResponse {
  readonly status: number
  readonly contentType: string
  readonly body: Buffer
  /**
   * Provider headers an error answer passes on to the caller: `retry-after`
   * and `retry-after-ms` (SDKs wait on them), and `content-encoding` (the
   * body is passed on as it came, compressed or not).
   */
  readonly passOn?: Readonly<Record<string, string>>
  /** The provider's id of this request (see {@link providerRequestId}); undefined when it sent none or a bad one. */
  readonly requestId?: string
}

/** The provider headers kept in {@link UpstreamResponse.passOn}. */
const PASSED_ON = ['retry-after', 'retry-after-ms', 'content-encoding'] as const

/**
 * The answer header that carries the provider's request id to the caller, on
 * every answer written after the provider answered. Not `x-request-id`: that is
 * gov's own id of the call (logs, audit `request_id`, traces).
 */
export const PROVIDER_REQUEST_ID = 'x-gov-provider-request-id'

/** A request id gov passes on: printable ASCII, 1–200 characters. */
const REQUEST_ID = /^[\x20-\x7e]{1,200}$/

/**
 * The provider's request id among its answer headers: OpenAI's `x-request-id`,
 * else Anthropic's `request-id`; undefined when absent or not 1–200 printable
 * ASCII characters (it goes into a response header).
 */
export function providerRequestId(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const value = headers['x-request-id'] ?? headers['request-id']
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : undefined
}

/**
 * Set the provider's request id among a call's answer headers (before a byte
 * of the answer leaves): always under {@link PROVIDER_REQUEST_ID}, and under
 * Anthropic's own `request-id` too when the provider sent that (the Anthropic
 * SDK's `_request_id`). Cleared when the provider sent none (a retried call's
 * second answer must not carry the first one's id).
 */
function setRequestIdHeaders(
  answerHeaders: Record<string, string>,
  id: string | undefined,
  anthropicStyle: boolean,
): void {
  if (id === undefined) {
    delete answerHeaders[PROVIDER_REQUEST_ID]
    delete answerHeaders['request-id']
    return
  }
  answerHeaders[PROVIDER_REQUEST_ID] = id
  if (anthropicStyle) answerHeaders['request-id'] = id
  else delete answerHeaders['request-id']
}

/** Options of {@link UpstreamClient}. */
export interface UpstreamOptions {
  /** Total deadline of one call, from sending the request to the last byte of the answer. */
  timeoutMs: number
  /** Largest answer body read; a larger one is cut off while it arrives (default {@link DEFAULT_MAX_ANSWER_BYTES}). */
  maxAnswerBytes?: number
  /** Connections per provider origin (default 128). */
  connections?: number
}

/** 32 MiB: far above any real completion (a 200k-token answer is under 1 MiB of JSON). */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/**
 * What tells an upstream call that its caller hung up. An `AbortSignal` is one;
 * the gateway passes a lighter one over the response's `close` event (an
 * `AbortController` and its signal cost ~10 µs per call here).
 */
export interface CallerSignal {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** The part of undici's handler controller used here. */
interface Controller {
  abort(reason: Error): void
}

/** Why a call was stopped before its answer was read. */
type Stop = 'timeout' | 'caller' | 'too_large'

/**
 * One keep-alive undici Pool per provider origin. `timeoutMs` is a deadline for
 * the whole call, not an idle timeout: a provider trickling one byte a second
 * still gets cut off at the deadline. Errors come back as GovErrors the
 * caller's adapter renders in its vendor format: unreachable → 502
 * `upstream_unreachable`, deadline passed → 504 `upstream_timeout`, answer over
 * `maxAnswerBytes` → 502 `upstream_answer_too_large`, caller gone → 499
 * `client_closed`.
 */
export class UpstreamClient {
  readonly #pools = new Map<string, Pool>()
  /** Parsed endpoint URLs; one per configured provider endpoint. */
  readonly #targets = new Map<string, { origin: string; path: string }>()
  readonly #maxAnswerBytes: number

  constructor(private readonly options: UpstreamOptions) {
    this.#maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES
  }

  /**
   * POST `body` to the provider and read its whole answer.
   * @param headers the call's own object: `content-length` is set on it
   * @param body JSON text, or its UTF-8 bytes
   */
  send(
    provider: Provider,
    headers: Record<string, string>,
    body: string | Buffer,
    signal?: CallerSignal,
    /** Sees each chunk of a successful `text/event-stream` answer as it arrives (windowed stream release). */
    onStreamChunk?: (chunk: Buffer) => void,
    /**
     * The call's answer headers: the provider's request id is set on them as
     * soon as its status line arrives, before any chunk reaches `onStreamChunk`.
     */
    answerHeaders?: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const target = this.#target(provider)
    const pool = this.#pool(target.origin)
    const timeoutMs = this.options.timeoutMs
    const payload = typeof body === 'string' ? Buffer.from(body) : body
    headers['content-length'] = String(payload.length)
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const call = new UpstreamCall(
        this,
        provider,
        signal,
        onStreamChunk,
        answerHeaders,
        timeoutMs,
        resolve,
        reject,
      )
      if (call.stopped) return
      pool.dispatch(
        {
          method: 'POST',
          path: target.path,
          headers,
          body: payload,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        call,
      )
    })
  }

  /** @internal The answer cap, for {@link UpstreamCall}. */
  get maxAnswerBytes(): number {
    return this.#maxAnswerBytes
  }

  /**
   * @internal The coded error of a call that ended without an answer. The
   * caller's hang-up wins (nobody is left to answer), then a deadline (gov's
   * or undici's), then the answer cap; anything else is the provider unreachable.
   */
  errorOf(provider: Provider, stop: Stop | undefined, err?: Error): GovError {
    if (stop === 'caller') return new GovError('client_closed', 'the caller closed the connection', 499)
    const code = (err as { code?: string } | undefined)?.code ?? ''
    if (stop === 'timeout' || TIMEOUT_CODES.has(code)) {
      return new GovError(
        'upstream_timeout',
        `provider ${provider.name} did not answer within ${this.options.timeoutMs} ms`,
        504,
      )
    }
    if (stop === 'too_large') {
      const limit = this.#maxAnswerBytes
      return new GovError(
        'upstream_answer_too_large',
        `provider ${provider.name} answered with more than ${limit} bytes`,
        502,
        { limit },
      )
    }
    return new GovError(
      'upstream_unreachable',
      `provider ${provider.name} is unreachable (${code || err?.message})`,
      502,
    )
  }

  /** Origin and request path of a provider's endpoint, parsed once per endpoint. */
  #target(provider: Provider): { origin: string; path: string } {
    const href = provider.baseUrl + provider.path
    let target = this.#targets.get(href)
    if (!target) {
      const url = new URL(href)
      target = { origin: url.origin, path: url.pathname + url.search }
      this.#targets.set(href, target)
    }
    return target
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#pools.values()].map((p) => p.close()))
    this.#pools.clear()
  }

  #pool(origin: string): Pool {
    let pool = this.#pools.get(origin)
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connections ?? 128,
        pipelining: 1,
        keepAliveTimeout: 30_000,
      })
      this.#pools.set(origin, pool)
    }
    return pool
  }
}

/**
 * One upstream call as an undici dispatch handler: the answer's chunks are
 * collected as they arrive (no body stream, no async iterator, no
 * `AbortController`), the deadline is one timer, the caller's hang-up one
 * listener, and the promise is settled once, by whichever comes first. A
 * stop (deadline, hang-up, answer cap) answers at once and drops the request:
 * right away when it is under way, as soon as undici starts it when it still
 * waits for a connection.
 */
class UpstreamCall {
  readonly #client: UpstreamClient
  readonly #provider: Provider
  readonly #signal: CallerSignal | undefined
  readonly #onStreamChunk: ((chunk: Buffer) => void) | undefined
  readonly #answerHeaders: Record<string, string> | undefined
  readonly #limit: number
  readonly #timer: NodeJS.Timeout
  readonly #resolve: (response: UpstreamResponse) => void
  readonly #reject: (error: Error) => void
  readonly #onCallerAbort = () => this.#stopFor('caller')
  #controller: Controller | undefined
  #stop: Stop | undefined
  #settled = false
  #status = 0
  #contentType = ''
  #forward: ((chunk: Buffer) => void) | undefined
  #passOn: Record<string, string> | undefined
  #requestId: string | undefined
  readonly #chunks: Buffer[] = []
  #size = 0

  constructor(
    client: UpstreamClient,
    provider: Provider,
    signal: CallerSignal | undefined,
    onStreamChunk: ((chunk: Buffer) => void) | undefined,
    answerHeaders: Record<string, string> | undefined,
    timeoutMs: number,
    resolve: (response: UpstreamResponse) => void,
    reject: (error: Error) => void,
  ) {
    this.#client = client
    this.#provider = provider
    this.#signal = signal
    this.#onStreamChunk = onStreamChunk
    this.#answerHeaders = answerHeaders
    this.#limit = client.maxAnswerBytes
    this.#resolve = resolve
    this.#reject = reject
    this.#timer = setTimeout(() => this.#stopFor('timeout'), timeoutMs)
    this.#timer.unref()
    if (signal?.aborted) this.#stopFor('caller')
    else signal?.addEventListener('abort', this.#onCallerAbort, { once: true })
  }

  /** True once the call was stopped or answered (before dispatch: the caller had already gone). */
  get stopped(): boolean {
    return this.#settled
  }

  #stopFor(stop: Stop): void {
    if (this.#settled) return
    this.#stop = stop
    const error = this.#client.errorOf(this.#provider, stop)
    this.#controller?.abort(error)
    this.#settle(undefined, error)
  }

  #settle(response: UpstreamResponse | undefined, error?: Error): void {
    if (this.#settled) return
    this.#settled = true
    clearTimeout(this.#timer)
    this.#signal?.removeEventListener('abort', this.#onCallerAbort)
    if (response) this.#resolve(response)
    else this.#reject(error as Error)
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller
    // Stopped while it waited for a connection: it never goes out.
    if (this.#stop) controller.abort(this.#client.errorOf(this.#provider, this.#stop))
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#controller = controller
    this.#status = statusCode
    for (const name of PASSED_ON) {
      const value = headers[name]
      if (typeof value !== 'string') continue
      this.#passOn ??= {}
      this.#passOn[name] = value
    }
    const id = providerRequestId(headers)
    this.#requestId = id
    if (this.#answerHeaders)
      setRequestIdHeaders(this.#answerHeaders, id, id !== undefined && headers['x-request-id'] === undefined)
    const type = headers['content-type']
    this.#contentType = type === undefined ? '' : String(type)
    if (Number(headers['content-length']) > this.#limit) {
      this.#stopFor('too_large')
      return
    }
    if (statusCode >= 200 && statusCode < 300 && this.#contentType.includes('text/event-stream'))
      this.#forward = this.#onStreamChunk
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.#settled) return
    this.#size += chunk.length
    if (this.#size > this.#limit) {
      this.#stopFor('too_large')
      return
    }
    this.#chunks.push(chunk)
    this.#forward?.(chunk)
  }

  onResponseEnd(): void {
    const chunks = this.#chunks
    const response: { -readonly [K in keyof UpstreamResponse]: UpstreamResponse[K] } = {
      status: this.#status,
      contentType: this.#contentType,
      body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#size),
    }
    // Optional fields only when present (same keys and order as before, without spreading a fresh object).
    if (this.#passOn) response.passOn = this.#passOn
    if (this.#requestId !== undefined) response.requestId = this.#requestId
    this.#settle(response)
  }

  onResponseError(_controller: Controller | undefined, err: Error): void {
    this.#settle(undefined, this.#client.errorOf(this.#provider, this.#stop, err))
  }
}
