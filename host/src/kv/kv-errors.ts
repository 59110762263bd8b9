/**
 * Coded errors of the key-value store and the event bus, the same for the
 * memory and the Redis kinds.
 */
import { GovError } from '@gov/core'

/** Stable codes of key-value and event-bus errors. */
export const KvErrorCodes = {
  /** Redis did not answer (down, unreachable, refused the credentials). HTTP 503. */
  UNAVAILABLE: 'GOV_ERR_KV_UNAVAILABLE',
  /** `incr` on a key whose value is not a number. */
  NOT_A_NUMBER: 'GOV_ERR_KV_NOT_A_NUMBER',
  /** The event bus was used after `close()`. */
  BUS_CLOSED: 'GOV_ERR_KV_BUS_CLOSED',
} as const

/** `incr` found a value it cannot add to. The value is not echoed: it may be anything a step stored. */
export function notANumberError(key: string): GovError {
  return new GovError(KvErrorCodes.NOT_A_NUMBER, `value of ${key} is not a number`, 500, { key })
}

/** Redis failed to run an operation. */
export function unavailableError(operation: string, cause: unknown): GovError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new GovError(KvErrorCodes.UNAVAILABLE, `redis ${operation} failed: ${reason}`, 503, { operation })
}

/** The bus is closed. */
export function busClosedError(): GovError {
  return new GovError(KvErrorCodes.BUS_CLOSED, 'event bus is closed', 500)
}
