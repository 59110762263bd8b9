import type { CallInfo, SessionOptions, SessionState, SessionStore } from '@gov/core'
import type { SessionBackend } from './session-backend.js'

/** Default sliding lifetime of a step's state in a session. */
export const DEFAULT_SESSION_TTL_MS = 24 * 3_600_000
/** The session id of an agent-wide scope (no `X-Gov-Session`); callers cannot send it (`*` is encoded). */
const AGENT_SCOPE = '*'

/**
 * The (agent, session) part of a session key. Both ids are URI-encoded, so no
 * choice of ids by a caller can make two different pairs collide, and the
 * agent is always the authenticated one: a session id alone never names state.
 */
export function sessionKey(agentId: string, sessionId: string | undefined): string {
  return `${encodeURIComponent(agentId)}:${sessionId === undefined ? AGENT_SCOPE : encodeURIComponent(sessionId)}`
}

/** The backend key of one step's state in one session. */
export function stepSessionKey(step: string, agentId: string, sessionId: string | undefined): string {
  return `s:${step}:${sessionKey(agentId, sessionId)}`
}

/** Open one step's state in a session. Without `ttlMs` (an admin's view) nothing renews its TTL. */
export function openSession(
  backend: SessionBackend,
  step: string,
  agentId: string,
  sessionId: string | undefined,
  ttlMs: number | undefined,
): SessionState {
  const key = stepSessionKey(step, agentId, sessionId)
  return {
    agentId,
    sessionId,
    key: sessionKey(agentId, sessionId),
    get: (field) => backend.get(key, field, ttlMs),
    getMany: (fields) => backend.getMany(key, fields, ttlMs),
    set: (field, value) => backend.set(key, field, value, ttlMs),
    setIfAbsent: (field, value) => backend.setIfAbsent(key, field, value, ttlMs),
    incr: (field, by = 1) => backend.incr(key, field, by, ttlMs),
    entries: () => backend.entries(key, ttlMs),
    del: (field) => backend.del(key, field, ttlMs),
    clear: () => backend.clear(key),
  }
}

/** The {@link SessionStore} a step gets from `services.sessions(options)`. */
export function createSessionStore(
  backend: SessionBackend,
  step: string,
  options: SessionOptions = {},
): SessionStore {
  const ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS
  return {
    of: (call: CallInfo) =>
      call.sessionId === undefined
        ? undefined
        : openSession(backend, step, call.agentId, call.sessionId, ttlMs),
    scope: (call: CallInfo) => openSession(backend, step, call.agentId, call.sessionId, ttlMs),
  }
}
