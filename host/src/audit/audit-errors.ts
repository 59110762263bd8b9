/**
 * Coded errors of the audit trail. Tests and callers match the code, never
 * the message text.
 */
import { GovError } from '@gov/core'

export const AuditErrorCodes = {
  /**
   * The record could not be written within its deadline (database down,
   * stalled, backlog full). HTTP 503. A call is then answered with this code
   * instead of its answer (fail closed: no answer leaves gov unrecorded).
   */
  UNAVAILABLE: 'audit_unavailable',
  /** A `GET /audit` query parameter is not valid. HTTP 400. */
  INVALID_QUERY: 'invalid_request',
} as const

/** The audit trail cannot be written. */
export function auditUnavailableError(): GovError {
  return new GovError(
    AuditErrorCodes.UNAVAILABLE,
    'the audit trail cannot be written; nothing is answered unrecorded',
    503,
  )
}

/** A bad `GET /audit` query parameter. */
export function invalidQueryError(parameter: string, expected: string): GovError {
  return new GovError(
    AuditErrorCodes.INVALID_QUERY,
    `query parameter ${parameter} must be ${expected}`,
    400,
    {
      parameter,
    },
  )
}
