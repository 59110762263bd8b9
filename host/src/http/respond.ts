import type { ServerResponse } from 'node:http'
import { GovError } from '@gov/core'

/** Write a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  })
  res.end(text)
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

/** Answer a management/health request with gov's error format. */
export function sendGovError(res: ServerResponse, err: unknown): void {
  const e = toGovError(err)
  sendJson(res, e.status, govErrorBody(e.code, e.message, e.details))
}
