import type { KeyValueStore, StepServices } from '@gov/core'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'

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

/** The capabilities one step gets: its logger, its slice of the key-value store, metrics, clock. */
export function createStepServices(
  stepName: string,
  deps: { logger: Logger; kv: KeyValueStore; metrics: GovMetrics; now?: () => number },
): StepServices {
  return {
    stepName,
    logger: deps.logger.child({ step: stepName }),
    kv: namespaced(deps.kv, `step:${stepName}:`),
    metrics: deps.metrics,
    now: deps.now ?? Date.now,
  }
}
