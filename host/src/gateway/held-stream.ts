import type { ServerResponse } from 'node:http'
import type { VendorAdapter } from '../adapters/adapter.js'

/** Response headers that are only known once the answer passed every check: sent as trailers once the stream is open. */
const LATE_HEADERS = ['x-gov-classification', 'x-gov-pipeline-steps', 'x-gov-token', 'x-gov-dedupe']

/**
 * A streamed answer gov holds back while it reads and checks the whole
 * upstream answer. No byte of the answer leaves before the checks pass; but
 * when that takes longer than the keep-alive interval, the stream is opened
 * (status 200, `text/event-stream`) and a keep-alive the SDKs ignore is sent
 * every interval — an SSE comment for the OpenAI formats, a `ping` event for
 * Anthropic — so a load balancer's idle timeout does not cut a long
 * generation. Once open, the x-gov headers travel as HTTP trailers, and an
 * error becomes the vendor's in-stream error event.
 */
export class HeldStream {
  #timer: NodeJS.Timeout | undefined
  #open = false

  constructor(
    private readonly res: ServerResponse,
    private readonly adapter: VendorAdapter,
    private readonly headers: Record<string, string>,
    intervalMs: number,
  ) {
    if (intervalMs > 0) {
      this.#timer = setInterval(() => this.#ping(), intervalMs)
      this.#timer.unref()
    }
  }

  /** True once keep-alives were sent: the status and headers are gone. */
  get open(): boolean {
    return this.#open
  }

  /** No more keep-alives (the answer or an error is about to be written). */
  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Write the answer's events and the late headers as trailers. */
  finish(sse: string, headers: Record<string, string>): void {
    this.stop()
    this.res.write(sse)
    const trailers: Record<string, string> = {}
    for (const name of LATE_HEADERS) if (headers[name] !== undefined) trailers[name] = headers[name]
    this.res.addTrailers(trailers)
    this.res.end()
  }

  /** Report an error inside the open stream, in the vendor's own event format. */
  fail(status: number, code: string, message: string): void {
    this.stop()
    const body = this.adapter.errorBody(status, code, message)
    let event: string
    if (this.adapter.vendor === 'anthropic') event = `event: error\ndata: ${JSON.stringify(body)}\n\n`
    else if (this.adapter.vendor === 'openai-responses') {
      event = `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param: null, sequence_number: 0 })}\n\n`
    } else event = `data: ${JSON.stringify(body)}\n\n`
    this.res.end(event)
  }

  #ping(): void {
    if (this.res.writableEnded || this.res.destroyed) {
      this.stop()
      return
    }
    if (!this.#open) {
      this.#open = true
      this.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...this.headers,
        trailer: LATE_HEADERS.join(', '),
      })
    }
    this.res.write(
      this.adapter.vendor === 'anthropic' ? 'event: ping\ndata: {"type":"ping"}\n\n' : ': keep-alive\n\n',
    )
  }
}
