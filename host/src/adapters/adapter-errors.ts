import { GovError } from '@gov/core'

/**
 * Codes the vendor adapters raise. They are the names the adapter interface
 * fixes (`adapter.ts`); the host maps them to the vendor's error body.
 */
export const AdapterErrorCodes = {
  /** The caller's body is not a valid request of the vendor format (400). */
  INVALID_REQUEST: 'invalid_request',
  /** The upstream reported an error inside its stream (502, vendor message kept). */
  UPSTREAM_ERROR: 'upstream_error',
  /** The upstream stream is empty, cut short or not parseable (502). */
  UPSTREAM_INVALID_STREAM: 'upstream_invalid_stream',
  /** The upstream answer body is not an answer of the vendor format (502). */
  UPSTREAM_INVALID_ANSWER: 'upstream_invalid_answer',
} as const

/** A 400 `invalid_request` naming the offending field; `details.field` carries the path. */
export function invalidRequest(field: string, why: string): GovError {
  return new GovError(AdapterErrorCodes.INVALID_REQUEST, `${field} ${why}`, 400, { field })
}

/**
 * A 502 `upstream_invalid_stream`. `why` must not quote the stream: its bytes
 * are upstream text no step has scanned, and the message reaches the caller.
 */
export function invalidStream(why: string): GovError {
  return new GovError(AdapterErrorCodes.UPSTREAM_INVALID_STREAM, `upstream stream ${why}`, 502)
}

/** A 502 `upstream_invalid_answer`. */
export function invalidAnswer(field: string, why: string): GovError {
  return new GovError(AdapterErrorCodes.UPSTREAM_INVALID_ANSWER, `upstream answer ${field} ${why}`, 502, {
    field,
  })
}

/**
 * A 502 `upstream_error` carrying the vendor's own error object (from an error
 * event inside a stream) in `details.upstream`, so the host can log it and keep
 * the vendor's message.
 */
export function upstreamError(error: unknown): GovError {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {}
  const message = typeof record.message === 'string' ? record.message : 'upstream reported an error'
  return new GovError(AdapterErrorCodes.UPSTREAM_ERROR, message, 502, { upstream: error })
}
