import type { IncomingMessage } from 'node:http'
import { GovError } from '@gov/core'
import type { AgentService } from '../agents/agent-service.js'
import type { Action, Authorizer } from '../auth/authorizer.js'
import { extractKey, sameKey } from '../auth/credentials.js'

/**
 * Guards admin endpoints: no key or an unknown key → 401 `unauthorized`; an
 * agent key → 403 `forbidden`; the admin key → the policy decides.
 */
export class AdminGuard {
  constructor(
    private readonly adminKey: string,
    private readonly agents: AgentService,
    private readonly authorizer: Authorizer,
  ) {}

  async require(req: IncomingMessage, action: Action): Promise<void> {
    const key = extractKey(req.headers)
    if (!key)
      throw new GovError(
        'unauthorized',
        'missing admin key: send Authorization: Bearer <GOV_ADMIN_API_KEY>',
        401,
      )
    if (sameKey(key, this.adminKey)) {
      if (!this.authorizer.authorize({ kind: 'admin' }, action))
        throw new GovError('forbidden', `policy denies ${action}`, 403)
      return
    }
    const agent = await this.agents.byKey(key)
    if (agent)
      throw new GovError('forbidden', 'this endpoint needs the admin key; an agent key was sent', 403)
    throw new GovError('unauthorized', 'invalid admin key', 401)
  }
}
