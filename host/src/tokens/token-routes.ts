import { Type } from 'typebox'
import { type AdminAudit, idChange } from '../audit/admin-entry.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { AdminGuard } from '../management/admin-guard.js'
import { validator } from '../management/schemas.js'
import type { TokenService } from './token-service.js'

/** A verify request carries one token; anything bigger is not a verify request. */
const VERIFY_BODY_LIMIT = 64 * 1024

const VerifyRequest = Type.Object(
  { token: Type.String(), audience: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  { additionalProperties: false },
)
const checkVerify = validator(VerifyRequest)

/**
 * Capability token routes: the public keys (no auth, so tool servers verify
 * offline), online verification (no auth; a bad token is a 200 answer, only a
 * bad request body is 400) and key rotation (admin).
 */
export function registerTokenRoutes(
  router: Router,
  deps: { tokens: TokenService; guard: AdminGuard; audit?: AdminAudit },
): void {
  const { tokens, guard } = deps

  router.on('GET', '/.well-known/jwks.json', async (_req, res) => {
    // Short: after a rotation verifiers see the new key soon; jose also refetches on an unknown kid.
    sendJson(res, 200, await tokens.jwks(), { 'cache-control': 'public, max-age=60' })
  })

  router.on('POST', '/v1/tokens/verify', async (req, res) => {
    const body = checkVerify(parseJson(await readBody(req, VERIFY_BODY_LIMIT)))
    sendJson(res, 200, await tokens.verify(body.token, body.audience), { 'cache-control': 'no-store' })
  })

  router.on('POST', '/admin/tokens/rotate', async (req, res) => {
    const admin = await guard.require(req, 'admin:write')
    req.resume()
    const rotated = await tokens.rotate()
    await deps.audit?.recordAdmin(
      idChange(admin, 'token_key.rotate', 200, {}, { kid: rotated.kid, previous_kid: rotated.previous_kid }),
    )
    sendJson(res, 200, rotated)
  })
}
