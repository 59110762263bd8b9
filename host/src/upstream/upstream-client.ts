import { GovError } from '@gov/core'
import { type Dispatcher, Pool } from 'undici'
import type { Provider } from './providers.js'

/** A complete upstream answer (streams are read to the end: gov scans before it releases a byte). */
export interface UpstreamResponse {
  readonly status: number
  readonly contentType: string
  readonly body: Buffer
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

/** Thrown inside the read loop; rethrown as is. */
class TooLarge extends GovError {}

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

  async send(
    provider: Provider,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
    /** Sees each chunk of a successful `text/event-stream` answer as it arrives (windowed stream release). */
    onStreamChunk?: (chunk: Buffer) => void,
  ): Promise<UpstreamResponse> {
    const target = this.#target(provider)
    const pool = this.#pool(target.origin)
    // One controller for the deadline and the caller's signal: AbortSignal.timeout + any cost a
    // timer that outlives the call and a composite signal per call on the hot path.
    const abort = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      abort.abort()
    }, this.options.timeoutMs)
    timer.unref()
    const onCallerAbort = () => abort.abort()
    if (signal?.aborted) abort.abort()
    else signal?.addEventListener('abort', onCallerAbort, { once: true })
    try {
      const res = await pool.request({
        method: 'POST',
        path: target.path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: abort.signal,
      })
      const contentType = String(res.headers['content-type'] ?? '')
      const ok = res.statusCode >= 200 && res.statusCode < 300 && contentType.includes('text/event-stream')
      return {
        status: res.statusCode,
        contentType,
        body: await this.#readCapped(res, provider, ok ? onStreamChunk : undefined),
      }
    } catch (err) {
      if (err instanceof TooLarge) throw err
      const code = (err as { code?: string }).code ?? ''
      // The caller's abort wins when both fired: nobody is left to answer.
      if (signal?.aborted) throw new GovError('client_closed', 'the caller closed the connection', 499)
      if (timedOut || TIMEOUT_CODES.has(code)) {
        throw new GovError(
          'upstream_timeout',
          `provider ${provider.name} did not answer within ${this.options.timeoutMs} ms`,
          504,
        )
      }
      throw new GovError(
        'upstream_unreachable',
        `provider ${provider.name} is unreachable (${code || (err as Error).message})`,
        502,
      )
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onCallerAbort)
    }
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

  /** Read the answer body, stopping (and dropping the connection) as soon as it passes the cap. */
  async #readCapped(
    res: Dispatcher.ResponseData,
    provider: Provider,
    onChunk?: (chunk: Buffer) => void,
  ): Promise<Buffer> {
    const limit = this.#maxAnswerBytes
    const tooLarge = () =>
      new TooLarge(
        'upstream_answer_too_large',
        `provider ${provider.name} answered with more than ${limit} bytes`,
        502,
        { limit },
      )
    const declared = Number(res.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      res.body.destroy()
      throw tooLarge()
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length
      if (size > limit) {
        res.body.destroy()
        throw tooLarge()
      }
      chunks.push(chunk as Buffer)
      onChunk?.(chunk as Buffer)
    }
    return Buffer.concat(chunks, size)
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
