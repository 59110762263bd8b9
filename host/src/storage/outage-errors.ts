/**
 * Database outages as coded errors. A store operation that fails because the
 * database is unreachable, stalled past its deadline or shutting down answers
 * 503 `storage_unavailable` (retry later) instead of 500 `internal_error`
 * (a bug); errors of the data itself (constraints, types) keep their meaning.
 */
import { GovError } from '@gov/core'
import type { Store } from './store.js'

export const STORAGE_UNAVAILABLE = 'storage_unavailable'

/**
 * SQLSTATE classes of outages: 08 connection exception, 53 insufficient
 * resources, 57 operator intervention (57014: statement timeout, 57P01:
 * terminated), 55P03 lock not available (lock_timeout), 40 transaction rollback
 * (serialization failure, deadlock).
 */
const OUTAGE_STATE = /^(08|53|57|40)|^55P03$/

/** Messages of the `pg` client when it gives up without a SQLSTATE. */
const CLIENT_OUTAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|Client was closed|Cannot use a pool after calling end/i

/** True when `error` (or one of its causes) says the database is out of reach rather than the request wrong. */
export function isOutage(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof candidate.code === 'string') {
      if (/^[0-9A-Z]{5}$/.test(candidate.code)) return OUTAGE_STATE.test(candidate.code)
      // Node's system errors: ECONNREFUSED, ECONNRESET, ETIMEDOUT, EHOSTUNREACH…
      if (/^E[A-Z]+$/.test(candidate.code)) return true
    }
    if (typeof candidate.message === 'string' && CLIENT_OUTAGE.test(candidate.message)) return true
    current = candidate.cause
  }
  return false
}

/** A store whose operations turn outage errors into 503 `storage_unavailable`; every other error passes unchanged. */
export function withOutageErrors(store: Store): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      // Start-up and shutdown keep the driver's own error: the operator needs its detail (host, reason).
      if (property === 'init' || property === 'close') return value.bind(target)
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args)
        return result instanceof Promise ? result.catch(rethrowOutage) : result
      }
    },
  })
}

function rethrowOutage(error: unknown): never {
  if (!(error instanceof GovError) && isOutage(error)) {
    const unavailable = new GovError(STORAGE_UNAVAILABLE, 'the database is unavailable; retry later', 503)
    // Kept for the log line of the 503; the answer carries only the code.
    unavailable.cause = error
    throw unavailable
  }
  throw error
}
