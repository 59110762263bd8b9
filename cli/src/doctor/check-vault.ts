import { readFile } from 'node:fs/promises'
import { readVaultSettings, VaultClient, type VaultSettings } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { withTimeout } from './with-timeout.js'

/** How a Vault call failed, as the host's VaultClient classifies it. */
function kindOf(err: unknown): string {
  const kind = (err as { kind?: unknown })?.kind
  return typeof kind === 'string' ? kind : 'unexpected'
}

const OUT_OF_REACH = new Set(['unreachable', 'timeout'])

/** The `exp` claim of a JWT, in epoch seconds, without verifying it (Vault verifies; the doctor only explains). */
function jwtExpiry(jwt: string): number | undefined {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown
    }
    return typeof claims.exp === 'number' ? claims.exp : undefined
  } catch {
    return undefined
  }
}

interface Attempt {
  method: 'jwt' | 'token'
  ok: boolean
  /** Whether Vault answered: undefined when the attempt never got to ask (JWT file unreadable or expired). */
  reached: boolean | undefined
  line: CheckResult
}

async function tryJwt(
  client: VaultClient,
  s: VaultSettings,
  timeoutMs: number,
  now: number,
): Promise<Attempt> {
  const fail = (detail: string, code: string | undefined, reached: boolean | undefined): Attempt => ({
    method: 'jwt',
    ok: false,
    reached,
    line: result('vault', 'workload JWT', 'fail', detail, code),
  })
  let jwt: string
  try {
    jwt = (await readFile(s.jwtPath!, 'utf8')).trim()
  } catch (err) {
    return fail(
      `VAULT_JWT_PATH ${s.jwtPath} cannot be read (${codeOf(err) ?? messageOf(err)}): is the workload identity agent writing it, and is the file mounted into this container?`,
      codeOf(err),
      undefined,
    )
  }
  const exp = jwtExpiry(jwt)
  if (exp === undefined)
    return fail(`${s.jwtPath} does not hold a JWT with an exp claim`, 'GOV_ERR_VAULT_AUTH_FAILED', undefined)
  const left = exp - Math.floor(now / 1000)
  if (left <= 0) {
    return fail(
      `${s.jwtPath} holds a JWT that expired ${-left} s ago: the file is not being refreshed (it lives 5 minutes); check the workload identity agent`,
      'GOV_ERR_VAULT_AUTH_FAILED',
      undefined,
    )
  }
  try {
    const lease = await withTimeout(
      client.jwtLogin(s.authPath, s.role!, jwt),
      timeoutMs + 500,
      'vault jwt login',
    )
    return {
      method: 'jwt',
      ok: true,
      reached: true,
      line: result(
        'vault',
        'workload JWT',
        'ok',
        `${s.jwtPath} valid for ${left} s more; login at auth/${s.authPath} as role ${s.role} worked (token TTL ${lease.ttlSeconds} s)`,
      ),
    }
  } catch (err) {
    const kind = kindOf(err)
    const fix = OUT_OF_REACH.has(kind)
      ? 'Vault did not answer'
      : `Vault refused it (${messageOf(err)}): check that role ${s.role} exists at auth/${s.authPath} and trusts this workload's issuer and subject`
    return fail(
      `login with ${s.jwtPath} failed: ${fix}`,
      'GOV_ERR_VAULT_AUTH_FAILED',
      !OUT_OF_REACH.has(kind),
    )
  }
}

async function tryToken(
  client: VaultClient,
  s: VaultSettings,
  timeoutMs: number,
  production: boolean,
): Promise<Attempt> {
  try {
    const lease = await withTimeout(client.lookupSelf(s.token!), timeoutMs + 500, 'vault lookup-self')
    const forever = lease.ttlSeconds === 0
    const line =
      forever && production
        ? result(
            'vault',
            'VAULT_TOKEN',
            'warn',
            'production-unsafe: VAULT_TOKEN is valid but never expires (a root or non-periodic token); log in with a workload JWT (VAULT_ROLE + VAULT_JWT_PATH) or use a periodic token with a narrow policy',
            'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
          )
        : result(
            'vault',
            'VAULT_TOKEN',
            'ok',
            `valid (${forever ? 'never expires' : `TTL ${lease.ttlSeconds} s, ${lease.renewable ? 'renewable' : 'not renewable'}`})`,
          )
    return { method: 'token', ok: true, reached: true, line }
  } catch (err) {
    const kind = kindOf(err)
    const reached = !OUT_OF_REACH.has(kind)
    const detail = reached
      ? `Vault refused VAULT_TOKEN (${messageOf(err)}): it is expired, revoked or wrong; issue a new token and update VAULT_TOKEN`
      : 'Vault did not answer the token lookup'
    return {
      method: 'token',
      ok: false,
      reached,
      line: result('vault', 'VAULT_TOKEN', 'fail', detail, 'GOV_ERR_VAULT_AUTH_FAILED'),
    }
  }
}

/**
 * Vault as the gateway uses it (same settings, same client): is it reachable,
 * does the workload JWT file exist and is it unexpired, does JWT login work,
 * is the static token valid, and which of them gov will log in with (JWT
 * first, token as fallback). Nothing is written to Vault; a JWT login creates
 * a short-lived token, as every gateway start does.
 */
export async function checkVault(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  production: boolean,
  now = Date.now(),
): Promise<{ results: CheckResult[]; usable: boolean }> {
  let settings: VaultSettings
  try {
    settings = readVaultSettings(env)
  } catch (err) {
    return {
      results: [
        result('vault', 'settings', 'fail', messageOf(err), codeOf(err) ?? 'GOV_ERR_VAULT_CONFIG_INVALID'),
      ],
      usable: false,
    }
  }
  const client = new VaultClient({ ...settings, timeoutMs: Math.min(settings.timeoutMs, timeoutMs) })
  const attempts: Attempt[] = []
  if (settings.jwtPath) attempts.push(await tryJwt(client, settings, timeoutMs, now))
  if (settings.token) attempts.push(await tryToken(client, settings, timeoutMs, production))

  const out: CheckResult[] = []
  const plain = new URL(settings.addr).protocol === 'http:'
  const tls = plain ? 'plain http' : `TLS${settings.caCert ? ', CA from VAULT_CACERT' : ''}`
  const reached = attempts.some((a) => a.reached === true)
  // Vault is out of reach when every attempt that asked it got no answer (a JWT file problem asks nothing).
  const unreachable = !reached && attempts.some((a) => a.reached === false)
  if (unreachable) {
    out.push(
      result(
        'vault',
        'VAULT_ADDR',
        'fail',
        `${settings.addr} does not answer: is Vault running and unsealed, and is the address right from this machine?`,
        'GOV_ERR_VAULT_UNAVAILABLE',
      ),
    )
  } else if (reached && plain && production) {
    out.push(
      result(
        'vault',
        'VAULT_ADDR',
        'warn',
        `production-unsafe: ${settings.addr} answers over plain http; serve Vault over TLS with the internal CA and set VAULT_CACERT`,
        'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
      ),
    )
  } else if (reached) out.push(result('vault', 'VAULT_ADDR', 'ok', `${settings.addr} answers (${tls})`))
  out.push(...attempts.map((a) => a.line))

  const used = attempts.find((a) => a.ok)
  const kv = `${settings.kvMount}/data/${settings.secretPath}/<NAME>`
  if (!used) {
    out.push(
      result(
        'vault',
        'login',
        'fail',
        'no login method works, so gov cannot read its secrets and will not start',
        'GOV_ERR_VAULT_AUTH_FAILED',
      ),
    )
  } else if (used.method === 'token' && settings.jwtPath) {
    out.push(
      result(
        'vault',
        'login',
        'warn',
        `gov falls back to VAULT_TOKEN because the workload JWT login fails (see above); secrets at ${kv}`,
      ),
    )
  } else {
    out.push(
      result(
        'vault',
        'login',
        'ok',
        `gov logs in with ${used.method === 'jwt' ? 'the workload JWT' : 'VAULT_TOKEN'}; secrets at ${kv}`,
      ),
    )
  }
  return { results: out, usable: used !== undefined }
}
