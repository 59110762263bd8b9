import nodeVault from 'node-vault'
import { VaultRequestError } from './vault-errors.js'
import type { VaultSettings } from './vault-settings.js'

/** A Vault token and how long it lives. */
export interface TokenLease {
  token: string
  /** Seconds left; 0 means the token never expires (e.g. a root token). */
  ttlSeconds: number
  renewable: boolean
}

/** A KV v2 entry: the secret's fields and its version. */
export interface KvEntry {
  data: Record<string, unknown>
  version: number | undefined
}

type Json = Record<string, unknown>

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT'])

/** Map whatever node-vault (axios) threw to a classified VaultRequestError. */
function classify(err: unknown): VaultRequestError {
  const e = err as { response?: { statusCode?: number }; code?: string; message?: string }
  const status = e.response?.statusCode
  const message = e.message ?? String(err)
  if (status !== undefined) {
    if (status === 403 || status === 401) return new VaultRequestError('denied', message, status)
    if (status >= 500 || status === 429) return new VaultRequestError('server', message, status)
    return new VaultRequestError('rejected', message, status)
  }
  if (e.code && TIMEOUT_CODES.has(e.code)) return new VaultRequestError('timeout', message)
  return new VaultRequestError('unreachable', e.code ? `${e.code}: ${message}` : message)
}

function object(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined
}

function lease(auth: Json | undefined, what: string): TokenLease {
  const token = auth?.client_token
  if (typeof token !== 'string' || !token)
    throw new VaultRequestError('malformed', `${what}: no auth.client_token`)
  return {
    token,
    ttlSeconds: typeof auth?.lease_duration === 'number' ? auth.lease_duration : 0,
    renewable: auth?.renewable === true,
  }
}

/**
 * The four Vault calls gov makes, over node-vault: KV v2 read, JWT login,
 * token lookup-self and renew-self. Every call sends its token explicitly
 * (node-vault's shared `client.token` would race between concurrent logins),
 * and every failure becomes a VaultRequestError saying whether Vault is out of
 * reach or refused the request.
 */
export class VaultClient {
  readonly #vault: nodeVault.client
  readonly #options: Json

  constructor(settings: Pick<VaultSettings, 'addr' | 'namespace' | 'caCert' | 'timeoutMs'>) {
    this.#options = { timeout: settings.timeoutMs, ...(settings.caCert ? { ca: settings.caCert } : {}) }
    this.#vault = nodeVault({ endpoint: settings.addr, apiVersion: 'v1', requestOptions: this.#options })
    // node-vault falls back to process.env for these; gov's settings come only from its own env.
    this.#vault.token = ''
    Object.assign(this.#vault, { namespace: settings.namespace ?? '', pathPrefix: '' })
  }

  /** Read a KV v2 entry (`path` is `<mount>/data/<path>`); undefined when it does not exist (404). */
  async readKv(path: string, token: string): Promise<KvEntry | undefined> {
    let body: Json
    try {
      body = await this.#vault.read(path, { headers: { 'X-Vault-Token': token } })
    } catch (err) {
      const failure = classify(err)
      if (failure.status === 404) return undefined
      throw failure
    }
    const data = object(object(body?.data)?.data)
    if (!data) throw new VaultRequestError('malformed', `${path}: response has no data.data`)
    const version = object(object(body.data)?.metadata)?.version
    return { data, version: typeof version === 'number' ? version : undefined }
  }

  /** `POST /v1/auth/<authPath>/login` with the role and the workload JWT. */
  async jwtLogin(authPath: string, role: string, jwt: string): Promise<TokenLease> {
    const body = await this.#request({ path: `/auth/${authPath}/login`, method: 'POST', json: { role, jwt } })
    return lease(object(body.auth), 'jwt login')
  }

  /** `GET /v1/auth/token/lookup-self`: checks a token and reads its remaining TTL. */
  async lookupSelf(token: string): Promise<TokenLease> {
    const body = await this.#request({ path: '/auth/token/lookup-self', method: 'GET', token })
    const data = object(body.data)
    if (!data) throw new VaultRequestError('malformed', 'lookup-self: response has no data')
    return {
      token,
      ttlSeconds: typeof data.ttl === 'number' ? data.ttl : 0,
      renewable: data.renewable === true,
    }
  }

  /** `POST /v1/auth/token/renew-self`: extends the token's lease. */
  async renewSelf(token: string): Promise<TokenLease> {
    const body = await this.#request({ path: '/auth/token/renew-self', method: 'POST', json: {}, token })
    return lease(object(body.auth), 'renew-self')
  }

  async #request(options: { path: string; method: string; json?: Json; token?: string }): Promise<Json> {
    try {
      const body = await this.#vault.request({
        ...this.#options,
        path: options.path,
        method: options.method,
        ...(options.json ? { json: options.json } : {}),
        headers: options.token ? { 'X-Vault-Token': options.token } : {},
      })
      return object(body) ?? {}
    } catch (err) {
      throw classify(err)
    }
  }
}
