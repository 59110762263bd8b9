import type { IncomingMessage } from 'node:http'
import { GovError } from '@gov/core'
import type { AgentService } from '../agents/agent-service.js'
import { identifyAdmin } from '../auth/admin-credentials.js'
import { apiAreaOf } from '../auth/api-area.js'
import type { Action, AdminPrincipal, Authorizer } from '../auth/authorizer.js'
import { extractKey } from '../auth/credentials.js'
import type { SecretSource } from '../secrets/secret-source.js'

/**
 * Guards admin endpoints: with no policy loaded → 403 `no_policy`; no key or an
 * unknown key → 401 `unauthorized`; an agent key → 403 `forbidden`; the admin
 * key (`Gov::Admin::"admin"`) or the auditor key (`Gov::Admin::"auditor"`) →
 * the policy decides, on the API area of the route (403 `forbidden` on deny).
 */
export class AdminGuard {
  constructor(
    /** The admin key, or a reader of it (through the secret source, so a rotated key takes effect). */
    private readonly adminKey: string | (() => Promise<string | undefined>),
    private readonly agents: AgentService,
    private readonly authorizer: Authorizer,
    private readonly secrets?: SecretSource,
  ) {}

  /** `area` is the `Gov::Api` resource; by default it comes from the path (`/pipelines/…` → `pipelines`). */
  async require(req: IncomingMessage, action: Action, area?: string): Promise<AdminPrincipal> {
    if (!this.authorizer.loaded)
      throw new GovError('no_policy', 'no authorization policy is loaded: every request is refused', 403)
    const admin = await this.#identify(req)
    const decision = this.authorizer.decide(admin, action, area ?? apiAreaOf(req.url))
    if (!decision.allowed) throw new GovError(decision.code, `policy denies ${action} to ${admin.name}`, 403)
    return admin
  }

  /**
   * The admin key only, loaded policy or not: the way out of a broken policy
   * file is `POST /admin/policy/reload`, which must work while everything else is refused.
   */
  async requireAdminKey(req: IncomingMessage): Promise<AdminPrincipal> {
    const admin = await this.#identify(req)
    if (admin.role !== 'admin') throw new GovError('forbidden', 'this endpoint needs the admin key', 403)
    return admin
  }

  async #identify(req: IncomingMessage): Promise<AdminPrincipal> {
    const key = extractKey(req.headers)
    if (!key)
      throw new GovError(
        'unauthorized',
        'missing admin key: send Authorization: Bearer <GOV_ADMIN_API_KEY>',
        401,
      )
    const adminKey = typeof this.adminKey === 'string' ? this.adminKey : await this.adminKey()
    // No admin key (removed from Vault): '' never matches a sent key, so admin access fails closed.
    const admin = await identifyAdmin(key, adminKey ?? '', this.secrets)
    if (admin) return admin
    const agent = await this.agents.byKey(key)
    if (agent)
      throw new GovError('forbidden', 'this endpoint needs the admin key; an agent key was sent', 403)
    throw new GovError('unauthorized', 'invalid admin key', 401)
  }
}
