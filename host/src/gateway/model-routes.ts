import type { IncomingMessage, ServerResponse } from 'node:http'
import { GovError } from '@gov/core'
import { request } from 'undici'
import type { VendorAdapter } from '../adapters/adapter.js'
import type { Authorizer } from '../auth/authorizer.js'
import type { Adapters } from '../container.js'
import { sendJson, toGovError } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { SecretSource } from '../secrets/secret-source.js'
import type { Provider, ProviderRouter } from '../upstream/providers.js'
import type { GatewayHandler } from './gateway-handler.js'

/** How long a provider's model list is reused. */
const LIST_TTL_MS = 60_000
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
const SERVED =
  'gov serves POST /v1/chat/completions, POST /v1/messages, POST /v1/messages/count_tokens, ' +
  'POST /v1/responses, GET /v1/models and GET /v1/models/{id}'

interface ModelList {
  readonly body: Record<string, unknown>
  readonly expires: number
}

/**
 * The small `/v1` endpoints SDKs call besides the model calls:
 * - `GET /v1/models` and `GET /v1/models/{id}`: the provider's list, filtered
 *   by what the agent's policy lets it call; the Anthropic format when the
 *   caller sends `anthropic-version` (the Anthropic SDK always does), else OpenAI's;
 * - any other `/v1/*` path: the caller is authenticated first, then told in
 *   its vendor's error format what gov serves (never a bare 404 before auth).
 */
export function registerModelRoutes(
  router: Router,
  deps: {
    gateway: GatewayHandler
    adapters: Adapters
    authorizer: Authorizer
    providers: ProviderRouter
    secrets: SecretSource
  },
): void {
  const lists = new Map<string, ModelList>()

  const vendorOf = (req: IncomingMessage) =>
    req.headers['anthropic-version'] !== undefined || (req.url ?? '').startsWith('/v1/messages')
      ? deps.adapters.anthropic
      : deps.adapters.openai

  async function guarded(
    req: IncomingMessage,
    res: ServerResponse,
    work: (a: VendorAdapter) => Promise<void>,
  ) {
    const adapter = vendorOf(req)
    try {
      await work(adapter)
    } catch (err) {
      const e = toGovError(err)
      sendJson(res, e.status, adapter.errorBody(e.status, e.code, e.message))
    }
  }

  async function providerList(adapter: VendorAdapter): Promise<Record<string, unknown>> {
    const cached = lists.get(adapter.vendor)
    if (cached && cached.expires > Date.now()) return cached.body
    const provider = deps.providers.list().find((p) => p.format === adapter.vendor) as Provider
    const key = await deps.secrets.get(provider.keyName)
    if (!key) throw new GovError('provider_not_configured', `${provider.keyName} is not set`, 502)
    const url =
      adapter.vendor === 'openai' ? `${provider.baseUrl}/models` : `${provider.baseUrl}/v1/models?limit=1000`
    const headers: Record<string, string> =
      adapter.vendor === 'openai'
        ? { authorization: `Bearer ${key}` }
        : { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
    let body: Record<string, unknown>
    try {
      const res = await request(url, { headers, signal: AbortSignal.timeout(10_000) })
      const text = await res.body.text()
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`)
      body = JSON.parse(text)
      if (!Array.isArray(body.data)) throw new Error('no data array')
    } catch (err) {
      throw new GovError(
        'upstream_unreachable',
        `the model list of ${provider.name} could not be read (${(err as Error).message})`,
        502,
      )
    }
    lists.set(adapter.vendor, { body, expires: Date.now() + LIST_TTL_MS })
    return body
  }

  async function allowedModels(req: IncomingMessage, adapter: VendorAdapter) {
    if (!deps.authorizer.loaded) {
      throw new GovError('no_policy', 'no authorization policy is loaded: every request is refused', 403)
    }
    const agent = await deps.gateway.authenticate(req)
    const list = await providerList(adapter)
    const data = (list.data as { id?: unknown }[]).filter(
      (m) =>
        typeof m.id === 'string' && deps.authorizer.authorize({ kind: 'agent', agent }, 'gateway:call', m.id),
    )
    return { list, data }
  }

  router.on('GET', '/v1/models', (req, res) =>
    guarded(req, res, async (adapter) => {
      const { list, data } = await allowedModels(req, adapter)
      const body =
        adapter.vendor === 'anthropic'
          ? {
              data,
              has_more: false,
              first_id: (data[0]?.id as string | undefined) ?? null,
              last_id: (data.at(-1)?.id as string | undefined) ?? null,
            }
          : { ...list, data }
      sendJson(res, 200, body)
    }),
  )

  router.on('GET', '/v1/models/:model', (req, res, params) =>
    guarded(req, res, async (adapter) => {
      const { data } = await allowedModels(req, adapter)
      const model = data.find((m) => m.id === params.model)
      if (!model)
        throw new GovError('model_not_found', `model ${params.model} does not exist or is not allowed`, 404)
      sendJson(res, 200, model)
    }),
  )

  for (const method of METHODS) {
    router.on(method, '/v1/*', (req, res) =>
      guarded(req, res, async () => {
        await deps.gateway.authenticate(req)
        req.resume()
        throw new GovError(
          'not_found',
          `no route for ${req.method} ${(req.url ?? '').split('?')[0]}; ${SERVED}`,
          404,
        )
      }),
    )
  }
}
