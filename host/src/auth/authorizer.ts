import type { AgentRecord } from '../storage/store.js'

/** Who is calling. */
export type Principal = { readonly kind: 'admin' } | { readonly kind: 'agent'; readonly agent: AgentRecord }

/** What a request wants to do. */
export type Action = 'gateway:call' | 'admin:read' | 'admin:write' | 'metrics:read'

/** Decides every authenticated request. */
export interface Authorizer {
  /** False when no policy is loaded: then every request is refused (403) and readiness reports `policy` not ok. */
  readonly loaded: boolean
  /** Whether `principal` may do `action` (on `resource`, e.g. a model name). */
  authorize(principal: Principal, action: Action, resource?: string): boolean
}

/**
 * The shipped default policy: agents may call the vendor endpoints; the admin
 * may manage pipelines and agents, read metrics and the overview. A policy
 * engine with operator-written policies replaces it behind the same interface.
 */
export class DefaultAuthorizer implements Authorizer {
  readonly loaded = true

  authorize(principal: Principal, action: Action): boolean {
    if (principal.kind === 'agent') return action === 'gateway:call'
    return action !== 'gateway:call'
  }
}
