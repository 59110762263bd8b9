import type { AgentRecord } from '../storage/store.js'

/** Roles of admin credentials: `admin` (GOV_ADMIN_API_KEY) and the read-only `auditor` (GOV_AUDITOR_API_KEY). */
export type AdminRole = 'admin' | 'auditor'

/** An admin credential: `Gov::Admin::"<name>"` with its role. */
export interface AdminPrincipal {
  readonly kind: 'admin'
  readonly name: string
  readonly role: AdminRole
}

/** An agent authenticated by its API key: `Gov::Agent::"<agent_id>"`. */
export interface AgentPrincipal {
  readonly kind: 'agent'
  readonly agent: AgentRecord
}

/** Who is calling. */
export type Principal = AdminPrincipal | AgentPrincipal

/**
 * What a request wants to do. Each maps to one Cedar action: `gateway:call` →
 * `Action::"call"` (resource: the model), `admin:read` / `admin:write` →
 * `Action::"read"` / `"write"` (resource: the API area, e.g. `pipelines`),
 * `metrics:read` → `"metrics"`, `secrets:write` → `"secrets"`, `audit:read` → `"audit"`.
 */
export type Action =
  | 'gateway:call'
  | 'admin:read'
  | 'admin:write'
  | 'metrics:read'
  | 'secrets:write'
  | 'audit:read'

/** One authorization decision. */
export interface Decision {
  readonly allowed: boolean
  /** `forbidden` when the policy denies; `no_policy` when none is loaded (every request is refused). */
  readonly code: 'allowed' | 'forbidden' | 'no_policy'
  /** Ids of the policies that decided (the permits that allowed, or the forbids that denied). */
  readonly policies: readonly string[]
  /** Evaluation errors; any error makes the decision a deny. */
  readonly errors: readonly string[]
}

/** What a policy (re)load produced. */
export interface PolicyReport {
  readonly file: string
  /** Policy ids in file order (`@id("…")` or `policy<N>`). */
  readonly policies: readonly string[]
  /** Validator warnings (e.g. a policy that can never match); the policy loads anyway. */
  readonly warnings: readonly string[]
}

/** Decides every authenticated request. */
export interface Authorizer {
  /** False when no policy is loaded: then every request is refused (403) and readiness reports `policy` not ok. */
  readonly loaded: boolean
  /** Whether `principal` may do `action` (on `resource`: a model name, or an API area). */
  authorize(principal: Principal, action: Action, resource?: string): boolean
  /** Like `authorize`, with the reason. */
  decide(principal: Principal, action: Action, resource?: string): Decision
  /** Re-read the policy and swap it in atomically; on failure the old policy stays and this throws a GovError. */
  reload?(): Promise<PolicyReport>
}
