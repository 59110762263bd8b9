import type { ServerResponse } from 'node:http'
import type { VendorAdapter } from '../adapters/adapter.js'
import { PROVIDER_REQUEST_ID } from '../upstream/upstream-client.js'

/** Response headers that are only known once the answer passed every check: sent as trailers once the stream is open. */
const LATE_HEADERS = ['x-gov-classification', 'x-gov-pipeline-steps', 'x-gov-token', 'x-gov-dedupe']
/**
 * The trailers of a stream opened before the provider's request id was known:
 * the id comes as a trailer too (not declared in `trailer`, which is written
 * before gov knows whether the provider will send one; Node reads it anyway).
 */
const LATE_HEADERS_AND_ID = [...LATE_HEADERS, PROVIDER_REQUEST_ID]

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
  /** The stream opened before the provider's request id was known: it goes as a trailer. */
  #idTrailer = false

  constructor(
    protected readonly res: ServerResponse,
    protected readonly adapter: VendorAdapter,
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

  /** Where the upstream stream's chunks go as they arrive; none for a held stream. */
  upstreamSink(): ((chunk: Buffer) => void) | undefined {
    return undefined
  }

  /**
   * The whole answer was governed: after this nothing more leaves before the
   * answer is recorded. Throws when the answer cannot follow what already left
   * (windowed release); a held stream has nothing to check.
   */
  async settle(_body: Record<string, unknown> | undefined): Promise<void> {}

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
    for (const name of this.#idTrailer ? LATE_HEADERS_AND_ID : LATE_HEADERS)
      if (headers[name] !== undefined) trailers[name] = headers[name]
    this.res.addTrailers(trailers)
    this.res.end()
  }

  /** Report an error inside the open stream, in the vendor's own event format. */
  fail(status: number, code: string, message: string): void {
    this.stop()
    if (this.res.writableEnded || this.res.destroyed) return
    const body = this.adapter.errorBody(status, code, message)
    let event: string
    if (this.adapter.vendor === 'anthropic') event = `event: error\ndata: ${JSON.stringify(body)}\n\n`
    else if (this.adapter.vendor === 'openai-responses') {
      // The Responses `error` event, plus the vendor error object under `error`: the openai SDK
      // raises an APIError (code and message kept) for an event whose data has `error`; without it,
      // `responses.stream()` fails on an error that comes before `response.created`.
      const error = {
        type: 'error',
        code,
        message,
        param: null,
        sequence_number: this.nextSequence(),
        error: body.error,
      }
      event = `event: error\ndata: ${JSON.stringify(error)}\n\n`
    } else event = `data: ${JSON.stringify(body)}\n\n`
    this.res.end(event)
  }

  /** The `sequence_number` of the next Responses event (none were sent before a held answer). */
  protected nextSequence(): number {
    return 0
  }

  #ping(): void {
    if (this.res.writableEnded || this.res.destroyed) {
      this.stop()
      return
    }
    this.openStream()
    this.res.write(
      this.adapter.vendor === 'anthropic' ? 'event: ping\ndata: {"type":"ping"}\n\n' : ': keep-alive\n\n',
    )
  }

  /** Send the status and headers of the event stream, once. */
  protected openStream(): void {
    if (!this.#open) {
      this.#open = true
      // Keep-alives may open the stream before the provider answered: its request id follows as a trailer.
      this.#idTrailer = this.headers[PROVIDER_REQUEST_ID] === undefined
      this.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...this.headers,
        trailer: LATE_HEADERS.join(', '),
      })
    }
  }
}
