/**
 * Single flight: one call does the work, identical calls in flight wait for
 * its result instead of repeating it — in one process and across replicas
 * (Redis: a lock key plus pub/sub, no polling). Keys are namespaced per step by
 * the host; a step must put the agent in the key when the work is per agent.
 */

/** The result of {@link Flights.join}: lead the work, or wait for the leader's. */
export type Flight = LeaderFlight | FollowerFlight

/** This call leads: do the work, then `complete` (or `abandon`) so followers stop waiting. */
export interface LeaderFlight {
  readonly role: 'leader'
  /** Publish the result to every follower (and keep it for `keepMs` for late joiners). */
  complete(value: string, keepMs?: number): Promise<void>
  /** Give up: followers waiting now get `undefined` and do the work themselves. */
  abandon(): Promise<void>
  /**
   * False when no follower waits for this flight's result now (flights in one
   * process can tell); absent, or true, when one may (flights across replicas
   * cannot tell). Asked and acted on in the same synchronous run, it lets a
   * leader skip building a result nobody reads: with no follower waiting and
   * nothing kept, `abandon` ends the flight exactly as `complete` would.
   */
  hasFollowers?(): boolean
}

/** Another call leads: wait for its result. */
export interface FollowerFlight {
  readonly role: 'follower'
  /** The leader's result, or undefined when it abandoned, failed or `timeoutMs` passed. */
  wait(timeoutMs: number): Promise<string | undefined>
}

/** The single-flight primitive of {@link StepServices}. */
export interface Flights {
  /**
   * Join the flight of `key`. The first caller leads until it completes,
   * abandons, or `leaseMs` passes (a crashed leader frees the key).
   */
  join(key: string, leaseMs: number): Promise<Flight>
}
