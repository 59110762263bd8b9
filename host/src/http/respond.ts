import type { IncomingMessage, ServerResponse } from 'node:http'
import { GovError } from '@gov/core'
import type { Logger } from '../logging.js'

/** Write a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, jsonHeaders(Buffer.byteLength(text), headers))
  res.end(text)
}

/** Write a JSON answer whose UTF-8 bytes are at hand (a provider's answer passed on unchanged). */
export function sendJsonBytes(
  res: ServerResponse,
  status: number,
  bytes: Buffer,
  headers?: Record<string, string>,
): void {
  res.writeHead(status, jsonHeaders(bytes.length, headers))
  res.end(bytes)
}

/**
 * The header list of a JSON answer as one flat `[name, value, …]` array for
 * `writeHead`: the same headers in the same order as the object
 * `{ 'content-type': 'application/json', 'content-length': …, ...headers }`
 * (a key of `headers` named like one of the first two replaces its value in
 * place), without building that object per answer.
 */
function jsonHeaders(length: number, headers: Record<string, string> | undefined): string[] {
  const flat = ['content-type', 'application/json', 'content-length', String(length)]
  if (headers === undefined) return flat
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue
    const value = headers[name] as string
    if (name === 'content-type') flat[1] = value
    else if (name === 'content-length') flat[3] = value
    else flat.push(name, value)
  }
  return flat
}

/** The error body of gov's own endpoints: `{ error: { code, message, details? } }`. */
export function govErrorBody(code: string, message: string, details?: Record<string, unknown>) {
  return { error: { code, message, ...(details ? { details } : {}) } }
}

/** Turn anything thrown into a GovError (unknown errors become 500 `internal_error`). */
export function toGovError(err: unknown): GovError {
  if (err instanceof GovError) return err
  return new GovError('internal_error', 'internal error', 500)
}

/**
 * Answer a management/health request with gov's error format. Every 5xx is
 * logged with its cause (the answer itself says only `internal error`): an
 * unexpected error at `error` with its stack, a coded one (a dependency down) at `warn`.
 */
export function sendGovError(res: ServerResponse, err: unknown, logger?: Logger): void {
  const e = toGovError(err)
  if (e.status >= 500 && logger) logServerError(logger, err, e, res.req)
  sendJson(res, e.status, govErrorBody(e.code, e.message, e.details))
}

/** Log one 5xx answer: what was asked (method, route path without the query), the code, and the cause. */
export function logServerError(
  logger: Logger,
  err: unknown,
  answered: GovError,
  req?: Pick<IncomingMessage, 'method' | 'url'>,
): void {
  const fields = {
    err,
    code: answered.code,
    status: answered.status,
    method: req?.method,
    // The query can carry ids and names; the path is enough to find the route.
    path: req?.url?.split('?')[0],
  }
  if (err instanceof GovError) logger.warn(fields, 'request failed')
  else logger.error(fields, 'request failed with an unexpected error')
}
