/** Failure of an admin call: gov's own error code (`agent_not_found`…) or a client-side one. */
export class AdminError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** HTTP status, 0 when no answer arrived. */
    readonly status: number,
  ) {
    super(message)
  }
}

/** Client-side error codes of the admin commands. */
export const AdminErrorCodes = {
  /** `GOV_ADMIN_API_KEY` is not set. */
  NO_KEY: 'GOV_ERR_CLI_NO_ADMIN_KEY',
  /** `--url` is not an http(s) URL. */
  BAD_URL: 'GOV_ERR_CLI_URL_INVALID',
  /** Nothing answered at `--url` (refused, DNS, TLS, timeout). */
  UNREACHABLE: 'GOV_ERR_CLI_UNREACHABLE',
  /** The gateway answered something that is not gov's JSON. */
  BAD_ANSWER: 'GOV_ERR_CLI_BAD_ANSWER',
} as const

/** An answer of the admin API. */
export interface AdminAnswer {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: shapes vary per endpoint; commands read the fields they print
  body: any
}

/**
 * The admin REST API of one gateway, with the admin key as bearer token.
 * Every failure becomes an {@link AdminError}: gov's `{ error: { code,
 * message } }` body when the gateway answered, a `GOV_ERR_CLI_*` code when it
 * did not.
 */
export class AdminClient {
  readonly base: string

  constructor(
    url: string,
    private readonly key: string,
    private readonly timeoutMs = 30_000,
  ) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new AdminError(AdminErrorCodes.BAD_URL, `--url must be an http(s) URL, got "${url}"`, 0)
    }
    this.base = url.replace(/\/+$/, '')
  }

  async request(
    method: string,
    path: string,
    options: { json?: unknown; text?: string; contentType?: string } = {},
  ): Promise<AdminAnswer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.key}`,
      accept: 'application/json',
    }
    let body: string | undefined
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.json)
    } else if (options.text !== undefined) {
      headers['content-type'] = options.contentType ?? 'text/plain'
      body = options.text
    }
    let res: Response
    try {
      res = await fetch(this.base + path, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      const why = cause?.code ?? cause?.message ?? (err as Error).message
      throw new AdminError(
        AdminErrorCodes.UNREACHABLE,
        `cannot reach gov at ${this.base} (${why}); is it running, and is --url right?`,
        0,
      )
    }
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      throw new AdminError(
        AdminErrorCodes.BAD_ANSWER,
        `${method} ${path} answered HTTP ${res.status} with a body that is not JSON; is --url a gov gateway?`,
        res.status,
      )
    }
    if (!res.ok) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
      const code = typeof error?.code === 'string' ? error.code : `http_${res.status}`
      const message = typeof error?.message === 'string' ? error.message : `HTTP ${res.status}`
      throw new AdminError(code, message, res.status)
    }
    return { status: res.status, body: parsed }
  }
}
