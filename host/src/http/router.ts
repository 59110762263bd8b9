import type { IncomingMessage, ServerResponse } from 'node:http'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import { govErrorBody, logServerError, sendGovError, sendJson, toGovError } from './respond.js'

/** A route handler; `params` are the path parameters. */
export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
) => Promise<void> | void

/** The route pattern a response answers, for the request counter. */
const ROUTE = Symbol('gov.route')
type RoutedResponse = ServerResponse & { [ROUTE]?: string }

/**
 * The HTTP router (find-my-way, Fastify's radix router). Every route counts
 * into `gov_http_requests_total` under its route pattern (bounded label
 * cardinality), and a handler that throws answers in gov's error format
 * instead of crashing.
 */
export class Router {
  readonly #router = FindMyWay({
    ignoreTrailingSlash: true,
    defaultRoute: (req, res) => {
      this.#count(req, res, 'unmatched')
      sendJson(
        res,
        404,
        govErrorBody('not_found', `no route for ${req.method} ${(req.url ?? '').split('?')[0]}`),
      )
    },
  })

  /** @param logger where 5xx answers are logged with their cause */
  constructor(
    private readonly metrics: GovMetrics,
    private readonly logger?: Logger,
  ) {
    this.#countFinished = function countFinished(this: RoutedResponse) {
      metrics.httpRequest(this.req.method ?? 'GET', this[ROUTE] ?? 'unmatched', String(this.statusCode)).inc()
    }
  }

  on(method: HTTPMethod, path: string, handler: Handler): void {
    this.#router.on(method, path, (req, res, params) => {
      this.#count(req, res, path)
      // Called directly (no promise hop per request); a throw or a rejection is answered the same way.
      let result: Promise<void> | void
      try {
        result = handler(req, res, params)
      } catch (err) {
        this.#failed(req, res, err)
        return
      }
      if (result) result.catch((err: unknown) => this.#failed(req, res, err))
    })
  }

  #failed(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    if (!res.headersSent) sendGovError(res, err, this.logger)
    else {
      if (this.logger) logServerError(this.logger, err, toGovError(err), req)
      res.destroy()
    }
  }

  lookup(req: IncomingMessage, res: ServerResponse): void {
    this.#router.lookup(req, res)
  }

  /** One listener for every response (no closure per request): it reads the route from the response. */
  readonly #countFinished: (this: RoutedResponse) => void

  #count(_req: IncomingMessage, res: ServerResponse, path: string): void {
    ;(res as RoutedResponse)[ROUTE] = path
    // 'finish' fires once per response, and the response is not reused: no once-wrapper needed.
    res.on('finish', this.#countFinished)
  }
}
