import { GovError } from '@gov/core'
import { Pool } from 'undici'
import type { Provider } from './providers.js'

/** A complete upstream answer (streams are read to the end: gov scans before it releases a byte). */
export interface UpstreamResponse {
  readonly status: number
  readonly contentType: string
  readonly body: Buffer
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/**
 * One keep-alive undici Pool per provider origin. Errors come back as GovErrors
 * the caller's adapter renders in its vendor format: unreachable → 502
 * `upstream_unreachable`, timeout → 504 `upstream_timeout`.
 */
export class UpstreamClient {
  readonly #pools = new Map<string, Pool>()

  constructor(private readonly options: { timeoutMs: number; connections?: number }) {}

  async send(
    provider: Provider,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<UpstreamResponse> {
    const url = new URL(provider.baseUrl + provider.path)
    const pool = this.#pool(url.origin)
    try {
      const res = await pool.request({
        method: 'POST',
        path: url.pathname + url.search,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        ...(signal ? { signal } : {}),
      })
      const chunks: Buffer[] = []
      for await (const chunk of res.body) chunks.push(chunk as Buffer)
      const contentType = String(res.headers['content-type'] ?? '')
      return { status: res.statusCode, contentType, body: Buffer.concat(chunks) }
    } catch (err) {
      const code = (err as { code?: string }).code ?? ''
      if (TIMEOUT_CODES.has(code)) {
        throw new GovError(
          'upstream_timeout',
          `provider ${provider.name} did not answer within ${this.options.timeoutMs} ms`,
          504,
        )
      }
      if (code === 'UND_ERR_ABORTED' || (err as Error).name === 'AbortError') {
        throw new GovError('client_closed', 'the caller closed the connection', 499)
      }
      throw new GovError(
        'upstream_unreachable',
        `provider ${provider.name} is unreachable (${code || (err as Error).message})`,
        502,
      )
    }
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
