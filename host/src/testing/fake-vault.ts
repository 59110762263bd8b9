/**
 * A Vault stand-in for tests: a real HTTP(S) server on port 0 implementing
 * exactly the endpoints gov uses, with Vault's response shapes (per Vault's
 * HTTP API documentation):
 *
 * - `GET  /v1/<mount>/data/<path>`       KV v2 read → `{ data: { data, metadata } }`, 404 `{ errors: [] }`
 * - `POST /v1/auth/<authPath>/login`     JWT login `{ role, jwt }` → `{ auth: { client_token, lease_duration, renewable, … } }`
 * - `GET  /v1/auth/token/lookup-self`    → `{ data: { id, ttl, renewable, … } }`
 * - `POST /v1/auth/token/renew-self`     → `{ auth: { client_token, lease_duration, renewable, … } }`
 *
 * Errors are `{ errors: [...] }`: 403 for a missing, bad, expired or revoked
 * token, 400 for a bad JWT or role. Faults: `down()` (closed port), `fault =
 * '500'`, `fault = 'slow'` (answers after `slowMs`), `expireToken` /
 * `revokeToken`, `rotateJwt()` (writes a new JWT to the file and stops
 * accepting the old one). Every request is recorded in `requests`.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface FakeVaultOptions {
  /** KV v2 mount (default `secret`). */
  mount?: string
  /** JWT auth mount (default `jwt`). */
  authPath?: string
  /** The JWT auth role that exists (default `gov`). */
  role?: string
  /** A static token that is accepted (default `fake-root-token`). */
  staticToken?: string
  /** Lifetime of the static token in seconds; 0 = never expires, like a root token (default 0). */
  staticTokenTtlSeconds?: number
  /** Lifetime of tokens issued by JWT login, in seconds (default 3600). */
  loginTtlSeconds?: number
  /** Max lifetime of a JWT-login token across renewals, in seconds (default 4 × login TTL). */
  maxTtlSeconds?: number
  /** Lifetime of the workload JWTs it writes, in seconds (default 300). */
  jwtTtlSeconds?: number
  /** Clock in ms shared with the code under test (default `Date.now`). */
  now?: () => number
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string }
}

/** One request the fake received. */
export interface FakeVaultRequest {
  method: string
  path: string
  /** Which kind of token was sent: `jwt-login`, `static`, `unknown` or none. */
  token: 'jwt-login' | 'static' | 'unknown' | undefined
}

export type FakeVaultFault = 'none' | '500' | 'slow'

interface TokenRecord {
  id: string
  accessor: string
  kind: 'jwt-login' | 'static'
  issuedAt: number
  /** Creation TTL in seconds (0 = none). */
  creationTtl: number
  /** Absolute expiry in ms; 0 = never. */
  expiresAt: number
  renewable: boolean
  revoked: boolean
}

interface KvRecord {
  versions: { data: Record<string, unknown>; createdAt: number }[]
}

type Json = Record<string, unknown>

export class FakeVault {
  /** Every request received, in order. */
  readonly requests: FakeVaultRequest[] = []
  /** Fault applied to every request while set. */
  fault: FakeVaultFault = 'none'
  /** Delay of the `slow` fault. */
  slowMs = 2_000
  /** File holding the current workload JWT (pass it as `VAULT_JWT_PATH`). */
  readonly jwtPath: string
  readonly staticToken: string
  readonly mount: string
  readonly role: string
  /** How many JWT logins succeeded. */
  logins = 0

  readonly #options: FakeVaultOptions
  readonly #now: () => number
  readonly #dir: string
  readonly #kv = new Map<string, KvRecord>()
  readonly #tokens = new Map<string, TokenRecord>()
  readonly #timers = new Set<NodeJS.Timeout>()
  #jwt = ''
  #jwtExpiresAt = 0
  #server: Server
  #port = 0
  #up = false

  private constructor(options: FakeVaultOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    this.mount = options.mount ?? 'secret'
    this.role = options.role ?? 'gov'
    this.staticToken = options.staticToken ?? 'fake-root-token'
    this.#dir = mkdtempSync(join(tmpdir(), 'gov-fake-vault-'))
    this.jwtPath = join(this.#dir, 'token.jwt')
    const ttl = options.staticTokenTtlSeconds ?? 0
    this.#tokens.set(this.staticToken, this.#newToken(this.staticToken, 'static', ttl, ttl > 0))
    this.rotateJwt()
    this.#server = this.#createServer()
  }

  /** Start a fake Vault on 127.0.0.1, port 0. */
  static async start(options: FakeVaultOptions = {}): Promise<FakeVault> {
    const vault = new FakeVault(options)
    await vault.up()
    return vault
  }

  /** `VAULT_ADDR` of this fake. */
  get url(): string {
    return `${this.#options.tls ? 'https' : 'http'}://127.0.0.1:${this.#port}`
  }

  /** Store a KV v2 version at `<mount>/data/<path>` (e.g. `gov/OPENAI_API_KEY`). */
  write(path: string, data: Record<string, unknown>): void {
    const record = this.#kv.get(path) ?? { versions: [] }
    record.versions.push({ data: structuredClone(data), createdAt: this.#now() })
    this.#kv.set(path, record)
  }

  /** Store a gov secret the way gov reads it: `<secretPath>/<NAME>`, field `value`. */
  putSecret(name: string, value: string, secretPath = 'gov'): void {
    this.write(`${secretPath}/${name}`, { value })
  }

  /** Remove an entry (reads answer 404). */
  remove(path: string): void {
    this.#kv.delete(path)
  }

  /** KV reads received, optionally only of `path` (e.g. `gov/OPENAI_API_KEY`). */
  kvReads(path?: string): number {
    const prefix = `/v1/${this.mount}/data/`
    return this.requests.filter(
      (r) => r.method === 'GET' && r.path.startsWith(prefix) && (!path || r.path === prefix + path),
    ).length
  }

  /** Requests to `path` (e.g. `/v1/auth/token/renew-self`). */
  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length
  }

  /** Write a new workload JWT to `jwtPath`; the previous one is no longer accepted. */
  rotateJwt(): string {
    const now = this.#now()
    const ttl = this.#options.jwtTtlSeconds ?? 300
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url')
    const claims = Buffer.from(
      JSON.stringify({
        sub: 'system:serviceaccount:gov:gov',
        iat: Math.floor(now / 1000),
        exp: Math.floor(now / 1000) + ttl,
        jti: randomUUID(),
      }),
    ).toString('base64url')
    this.#jwt = `${header}.${claims}.${randomBytes(32).toString('base64url')}`
    this.#jwtExpiresAt = now + ttl * 1000
    writeFileSync(this.jwtPath, `${this.#jwt}\n`)
    return this.#jwt
  }

  /** Tokens issued by JWT login, newest last. */
  issuedTokens(): string[] {
    return [...this.#tokens.values()].filter((t) => t.kind === 'jwt-login').map((t) => t.id)
  }

  /** Make a token expire now (`static` for the static token; default every token). */
  expireToken(token?: string): void {
    for (const t of this.#select(token)) t.expiresAt = this.#now() - 1
  }

  /** Revoke a token (default every token, the static one included). */
  revokeToken(token?: string): void {
    for (const t of this.#select(token)) t.revoked = true
  }

  /** Stop listening: the port is closed, connections are refused. */
  async down(): Promise<void> {
    if (!this.#up) return
    this.#up = false
    for (const t of this.#timers) clearTimeout(t)
    this.#timers.clear()
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
    this.#server = this.#createServer()
  }

  /** Listen again (on the same port once it has had one). */
  async up(): Promise<void> {
    if (this.#up) return
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(this.#port, '127.0.0.1', () => resolve())
    })
    this.#port = (this.#server.address() as AddressInfo).port
    this.#up = true
  }

  async close(): Promise<void> {
    await this.down()
    rmSync(this.#dir, { recursive: true, force: true })
  }

  #select(token?: string): TokenRecord[] {
    if (token === undefined) return [...this.#tokens.values()]
    const t = this.#tokens.get(token === 'static' ? this.staticToken : token)
    return t ? [t] : []
  }

  #createServer(): Server {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => this.#handle(req, res, Buffer.concat(chunks).toString('utf8')))
    }
    const server = this.#options.tls
      ? createHttpsServer(this.#options.tls, handler)
      : createHttpServer(handler)
    server.keepAliveTimeout = 1_000
    return server
  }

  #handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? '/').split('?')[0]
    const header = req.headers['x-vault-token']
    const tokenValue = typeof header === 'string' ? header : undefined
    const record = tokenValue ? this.#tokens.get(tokenValue) : undefined
    this.requests.push({
      method: req.method ?? 'GET',
      path,
      token: tokenValue ? (record?.kind ?? 'unknown') : undefined,
    })
    const answer = () => {
      const answered = this.#answer(req.method ?? 'GET', path, tokenValue, raw)
      send(res, answered.status, answered.body)
    }
    if (this.fault === 'slow') {
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        if (!res.destroyed) answer()
      }, this.slowMs)
      this.#timers.add(timer)
    } else answer()
  }

  #answer(method: string, path: string, token: string | undefined, raw: string): Reply {
    if (this.fault === '500') return reply(500, { errors: ['internal error'] })
    let body: Json = {}
    try {
      body = raw ? (JSON.parse(raw) as Json) : {}
    } catch {
      return reply(400, { errors: ['failed to parse JSON input'] })
    }
    const authPath = this.#options.authPath ?? 'jwt'
    if (method === 'POST' && path === `/v1/auth/${authPath}/login`) return this.#login(body)
    const record = this.#valid(token)
    if (!record) return reply(403, { errors: ['permission denied'] })
    if (method === 'GET' && path === '/v1/auth/token/lookup-self') return reply(200, this.#lookup(record))
    if (method === 'POST' && path === '/v1/auth/token/renew-self') return this.#renew(record, body)
    const kvPrefix = `/v1/${this.mount}/data/`
    if (method === 'GET' && path.startsWith(kvPrefix))
      return this.#read(decodeURIComponent(path.slice(kvPrefix.length)))
    return reply(404, { errors: [] })
  }

  #valid(token: string | undefined): TokenRecord | undefined {
    const record = token ? this.#tokens.get(token) : undefined
    if (!record || record.revoked) return undefined
    if (record.expiresAt > 0 && this.#now() >= record.expiresAt) return undefined
    return record
  }

  #login(body: Json): Reply {
    if (typeof body.jwt !== 'string' || !body.jwt) return reply(400, { errors: ['missing token'] })
    if (typeof body.role !== 'string' || !body.role) return reply(400, { errors: ['missing role'] })
    if (body.role !== this.role) return reply(400, { errors: [`role "${body.role}" could not be found`] })
    if (body.jwt !== this.#jwt) return reply(400, { errors: ['error validating token: invalid signature'] })
    if (this.#now() >= this.#jwtExpiresAt) {
      return reply(400, { errors: ['error validating claims: token is expired'] })
    }
    const ttl = this.#options.loginTtlSeconds ?? 3600
    const record = this.#newToken(`hvs.${randomBytes(18).toString('base64url')}`, 'jwt-login', ttl, true)
    this.#tokens.set(record.id, record)
    this.logins++
    return reply(200, envelope({ auth: this.#auth(record, ttl) }))
  }

  #renew(record: TokenRecord, body: Json): Reply {
    if (!record.renewable) return reply(400, { errors: ['lease is not renewable'] })
    const requested = typeof body.increment === 'number' ? body.increment : record.creationTtl
    const maxTtl = this.#options.maxTtlSeconds ?? 4 * (this.#options.loginTtlSeconds ?? 3600)
    const now = this.#now()
    const left =
      record.kind === 'static' ? requested : Math.floor((record.issuedAt + maxTtl * 1000 - now) / 1000)
    const ttl = Math.max(0, Math.min(requested, left))
    record.expiresAt = now + ttl * 1000
    return reply(200, envelope({ auth: this.#auth(record, ttl) }))
  }

  #lookup(record: TokenRecord): Json {
    const now = this.#now()
    const ttl = record.expiresAt > 0 ? Math.max(0, Math.floor((record.expiresAt - now) / 1000)) : 0
    return envelope({
      data: {
        accessor: record.accessor,
        creation_time: Math.floor(record.issuedAt / 1000),
        creation_ttl: record.creationTtl,
        display_name: record.kind === 'static' ? 'token' : `${this.#options.authPath ?? 'jwt'}-gov`,
        entity_id: '',
        expire_time: record.expiresAt > 0 ? new Date(record.expiresAt).toISOString() : null,
        explicit_max_ttl: 0,
        id: record.id,
        issue_time: new Date(record.issuedAt).toISOString(),
        meta: record.kind === 'jwt-login' ? { role: this.role } : null,
        num_uses: 0,
        orphan: true,
        path:
          record.kind === 'static' ? 'auth/token/create' : `auth/${this.#options.authPath ?? 'jwt'}/login`,
        policies: record.kind === 'static' ? ['root'] : ['default', 'gov'],
        renewable: record.renewable,
        ttl,
        type: 'service',
      },
    })
  }

  #read(path: string): Reply {
    const record = this.#kv.get(path)
    const latest = record?.versions.at(-1)
    if (!record || !latest) return reply(404, { errors: [] })
    return reply(
      200,
      envelope({
        data: {
          data: latest.data,
          metadata: {
            created_time: new Date(latest.createdAt).toISOString(),
            custom_metadata: null,
            deletion_time: '',
            destroyed: false,
            version: record.versions.length,
          },
        },
      }),
    )
  }

  #auth(record: TokenRecord, ttl: number): Json {
    return {
      client_token: record.id,
      accessor: record.accessor,
      policies: ['default', 'gov'],
      token_policies: ['default', 'gov'],
      metadata: { role: this.role },
      lease_duration: ttl,
      renewable: record.renewable,
      entity_id: '',
      token_type: 'service',
      orphan: true,
    }
  }

  #newToken(id: string, kind: TokenRecord['kind'], ttl: number, renewable: boolean): TokenRecord {
    const now = this.#now()
    return {
      id,
      accessor: randomBytes(12).toString('base64url'),
      kind,
      issuedAt: now,
      creationTtl: ttl,
      expiresAt: ttl > 0 ? now + ttl * 1000 : 0,
      renewable,
      revoked: false,
    }
  }
}

/** What the fake answers: status and JSON body. */
interface Reply {
  status: number
  body: Json
}

function reply(status: number, body: Json): Reply {
  return { status, body }
}

/** Vault's response envelope around `data` or `auth`. */
function envelope(part: Json): Json {
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: null,
    wrap_info: null,
    warnings: null,
    auth: null,
    ...part,
  }
}

function send(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  })
  res.end(text)
}
