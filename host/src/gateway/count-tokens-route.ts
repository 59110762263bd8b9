import type { TokenCounter } from '@gov/core'
import type { Adapters } from '../container.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson, toGovError } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { GatewayHandler } from './gateway-handler.js'

/**
 * `POST /v1/messages/count_tokens`, as the Anthropic SDK's `messages.countTokens`
 * calls it: the caller is authenticated, the body is validated as an Anthropic
 * request and counted with the host's token counter (the one `track_cost` and the
 * budgets use), so a client sizes its prompt with the numbers gov enforces.
 * Nothing is sent upstream. The body is counted as sent: masking swaps a value
 * for a placeholder of about the same token length, so running the request steps
 * first would not change the count materially, and would cost a whole chain run.
 */
export function registerCountTokensRoute(
  router: Router,
  deps: { gateway: GatewayHandler; adapters: Adapters; tokens: TokenCounter; maxBodyBytes: number },
): void {
  const adapter = deps.adapters.anthropic
  router.on('POST', '/v1/messages/count_tokens', async (req, res) => {
    try {
      await deps.gateway.authenticate(req)
      const body = parseJson(await readBody(req, deps.maxBodyBytes)) as Record<string, unknown>
      // count_tokens takes a Messages request without `max_tokens`, which the parser requires.
      const exchange = adapter.parseRequest({ ...body, max_tokens: 1 })
      sendJson(res, 200, { input_tokens: deps.tokens.countRequest(exchange) })
    } catch (err) {
      const e = toGovError(err)
      sendJson(res, e.status, adapter.errorBody(e.status, e.code, e.message))
    }
  })
}
