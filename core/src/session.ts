/**
 * Per-session state, a host service (DESIGN §5). A session is the pair
 * (agent, session id): the host keys every entry by the authenticated agent,
 * never by the caller's session string alone, so two agents that send the same
 * `X-Gov-Session` share nothing. Each step has its own namespace inside a
 * session, and the whole namespace expires together after `ttlMs` without use
 * (a sliding TTL: every read or write renews it), so no entry can outlive
 * another it depends on (a placeholder counter and its placeholders).
 *
 * Embedded, the state lives in process; scaled out, it is one Redis hash per
 * (agent, session, step), and every operation is one atomic command.
 */
import type { CallInfo } from './step.js'

/** One step's state in one (agent, session). Every call renews the TTL of the whole namespace. */
export interface SessionState {
  /** The authenticated agent. */
  readonly agentId: string
  /** The caller's session id, or undefined for an agent-wide scope ({@link SessionStore.scope}). */
  readonly sessionId: string | undefined
  /**
   * An opaque string naming this (agent, session) that a step may use as a
   * prefix of its own key-value keys (e.g. counters with their own window).
   * Safe for any agent or session id: both are encoded.
   */
  readonly key: string
  get(field: string): Promise<string | undefined>
  /** Values of several fields in one round trip, in order. */
  getMany(fields: readonly string[]): Promise<(string | undefined)[]>
  set(field: string, value: string): Promise<void>
  /** Set only if absent; true when this call set it. */
  setIfAbsent(field: string, value: string): Promise<boolean>
  /** Atomically add `by` (default 1) and return the new value. */
  incr(field: string, by?: number): Promise<number>
  /** Every field and value of this step's namespace (keep namespaces you read whole small). */
  entries(): Promise<Record<string, string>>
  del(field: string): Promise<void>
  /** Remove this step's whole namespace in the session. */
  clear(): Promise<void>
}

/** Options of {@link StepServices.sessions}. */
export interface SessionOptions {
  /** Sliding lifetime of the step's state in a session; default 24 h. */
  readonly ttlMs?: number
}

/** Opens the step's state in the session of a call. */
export interface SessionStore {
  /** The state of the call's session, or undefined when the caller sent no session id. */
  of(call: CallInfo): SessionState | undefined
  /** The call's session when it has one, otherwise the agent-wide scope (every call of the agent without a session). */
  scope(call: CallInfo): SessionState
}
