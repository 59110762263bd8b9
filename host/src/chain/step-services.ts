import type { Flights, KeyValueStore, PriceBook, StepServices, TokenCounter } from '@gov/core'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { SessionBackend } from '../sessions/session-backend.js'
import { createSessionStore } from '../sessions/session-store.js'

/** Prefix every key of a step so steps never see each other's state. */
function namespaced(kv: KeyValueStore, prefix: string): KeyValueStore {
  return {
    get: (key) => kv.get(prefix + key),
    set: (key, value, ttlMs) => kv.set(prefix + key, value, ttlMs),
    setIfAbsent: (key, value, ttlMs) => kv.setIfAbsent(prefix + key, value, ttlMs),
    incr: (key, by, ttlMs) => kv.incr(prefix + key, by, ttlMs),
    del: (key) => kv.del(prefix + key),
  }
}

/** Single flights with the step's name in every key. */
function namespacedFlights(flights: Flights, prefix: string): Flights {
  return { join: (key, leaseMs) => flights.join(prefix + key, leaseMs) }
}

/** What the host shares with every step. */
export interface StepServiceDeps {
  logger: Logger
  kv: KeyValueStore
  sessions: SessionBackend
  flights: Flights
  tokens: TokenCounter
  prices: PriceBook
  metrics: GovMetrics
  now?: () => number
}

/** The capabilities one step gets: its logger, its slices of the key-value store, sessions and flights, metrics, clock. */
export function createStepServices(stepName: string, deps: StepServiceDeps): StepServices {
  return {
    stepName,
    logger: deps.logger.child({ step: stepName }),
    kv: namespaced(deps.kv, `step:${stepName}:`),
    metrics: deps.metrics,
    sessions: (options) => createSessionStore(deps.sessions, stepName, options),
    flights: namespacedFlights(deps.flights, `${stepName}:`),
    tokens: deps.tokens,
    prices: deps.prices,
    now: deps.now ?? Date.now,
  }
}
