import { importSigningKey, type SecretSource, SIGNING_KEY_SECRET } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { withTimeout } from './with-timeout.js'

async function publishedKids(url: string, timeoutMs: number): Promise<string[]> {
  const target = `${url.replace(/\/+$/, '')}/.well-known/jwks.json`
  const res = await withTimeout(
    fetch(target, { signal: AbortSignal.timeout(timeoutMs) }),
    timeoutMs + 200,
    target,
  )
  if (!res.ok) throw new Error(`${target} answered HTTP ${res.status}`)
  const body = (await res.json()) as { keys?: { kid?: unknown }[] }
  return (body.keys ?? []).map((k) => String(k.kid))
}

/**
 * Is the capability-token signing key shared by every replica? Replicas that
 * read the same `GOV_TOKEN_SIGNING_KEY` derive the same key id (RFC 7638
 * thumbprint, or the JWK's own `kid`); without it each process generates its
 * own key and a token minted by one replica fails verification on another.
 * With `--url`, each gateway's JWKS must publish that key id.
 */
export async function checkSigningKey(
  secrets: SecretSource,
  production: boolean,
  urls: readonly string[],
  timeoutMs: number,
): Promise<CheckResult[]> {
  let text: string | undefined
  try {
    text = await secrets.get(SIGNING_KEY_SECRET)
  } catch (err) {
    return [
      result(
        'tokens',
        SIGNING_KEY_SECRET,
        'fail',
        `cannot be read from ${secrets.kind}: ${messageOf(err)}`,
        codeOf(err),
      ),
    ]
  }
  if (!text) {
    const why = `unset: each gateway process generates its own signing key at start, so a capability token minted by one replica fails verification on another and every restart invalidates the tokens handed out; store an Ed25519 private JWK or PEM as ${SIGNING_KEY_SECRET}${secrets.kind === 'vault' ? ' in Vault' : ''}`
    return [
      result(
        'tokens',
        SIGNING_KEY_SECRET,
        production ? 'fail' : 'warn',
        production ? `production-unsafe: ${why}` : why,
        production ? 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE' : undefined,
      ),
    ]
  }
  let kid: string
  try {
    kid = (await importSigningKey(text)).kid
  } catch (err) {
    return [result('tokens', SIGNING_KEY_SECRET, 'fail', messageOf(err), codeOf(err))]
  }
  const out = [
    result(
      'tokens',
      SIGNING_KEY_SECRET,
      'ok',
      `usable key, kid ${kid}, read from ${secrets.kind}: every replica reading this secret signs with it`,
    ),
  ]
  for (const url of urls) {
    try {
      const kids = await publishedKids(url, timeoutMs)
      out.push(
        kids.includes(kid)
          ? result('tokens', url, 'ok', `publishes kid ${kid} (${kids.length} keys in its JWKS)`)
          : result(
              'tokens',
              url,
              'fail',
              `does not publish kid ${kid} (it has ${kids.join(', ') || 'none'}): this replica signs with another key; give it the same ${SIGNING_KEY_SECRET} and restart it or POST /admin/tokens/rotate`,
              'GOV_ERR_DOCTOR_KEY_MISMATCH',
            ),
      )
    } catch (err) {
      out.push(
        result(
          'tokens',
          url,
          'warn',
          `JWKS not checked: ${messageOf(err)}`,
          codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
        ),
      )
    }
  }
  return out
}
