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

/**
 * Redis failed to run an operation. `connection` is the last connection error
 * (a refused TLS certificate, a wrong password): ioredis reports it only as an
 * event, and the command itself then just times out or runs out of retries.
 */
export function unavailableError(operation: string, cause: unknown, connection?: Error): GovError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  const why =
    connection && connection.message !== reason ? ` (connection: ${firstLine(connection.message)})` : ''
  return new GovError(KvErrorCodes.UNAVAILABLE, `redis ${operation} failed: ${reason}${why}`, 503, {
    operation,
  })
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() ?? text
}

/** The bus is closed. */
export function busClosedError(): GovError {
  return new GovError(KvErrorCodes.BUS_CLOSED, 'event bus is closed', 500)
}
