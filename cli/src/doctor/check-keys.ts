import type { SecretSource } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

/** Read a secret; a failed read (Vault refusing or unreachable) becomes a FAIL line instead of an exception. */
async function read(secrets: SecretSource, name: string): Promise<{ set: boolean } | { error: CheckResult }> {
  try {
    return { set: Boolean(await secrets.get(name)) }
  } catch (err) {
    return {
      error: result(
        'keys',
        name,
        'fail',
        `cannot be read from ${secrets.kind}: ${messageOf(err)}`,
        codeOf(err),
      ),
    }
  }
}

/** Provider keys gov sends upstream, by provider. */
const PROVIDER_KEYS = [
  { name: 'OPENAI_API_KEY', provider: 'OpenAI' },
  { name: 'ANTHROPIC_API_KEY', provider: 'Anthropic' },
] as const

/**
 * Which keys are set. Values are read through the secret source like the
 * gateway does, and never printed: only set or unset.
 */
export async function checkKeys(secrets: SecretSource, production: boolean): Promise<CheckResult[]> {
  const out: CheckResult[] = []
  for (const key of PROVIDER_KEYS) {
    const got = await read(secrets, key.name)
    if ('error' in got) {
      out.push(got.error)
      continue
    }
    out.push(
      got.set
        ? result('keys', key.name, 'ok', `set (read from ${secrets.kind})`)
        : result(
            'keys',
            key.name,
            'warn',
            `unset: calls routed to ${key.provider} are answered 502 provider_not_configured; set ${key.name}${secrets.kind === 'vault' ? ' in Vault' : ''} if agents use ${key.provider}`,
          ),
    )
  }
  const admin = await read(secrets, 'GOV_ADMIN_API_KEY')
  if ('error' in admin) out.push(admin.error)
  else if (admin.set) out.push(result('keys', 'GOV_ADMIN_API_KEY', 'ok', `set (read from ${secrets.kind})`))
  else if (production) {
    out.push(
      result(
        'keys',
        'GOV_ADMIN_API_KEY',
        'fail',
        'unset: required when GOV_ENV=production; the gateway refuses to start',
        'GOV_ERR_CONFIG_INVALID',
      ),
    )
  } else {
    out.push(
      result(
        'keys',
        'GOV_ADMIN_API_KEY',
        'warn',
        'unset: gov generates one at every start and prints it once to the terminal; set it to keep admin access across restarts',
      ),
    )
  }
  return out
}

/** Production rules that are not about one dependency. */
export function checkProduction(secrets: SecretSource, production: boolean): CheckResult[] {
  if (!production) return []
  if (secrets.kind === 'env') {
    return [
      result(
        'production',
        'secrets',
        'warn',
        'production-unsafe: secrets are read from the process environment, not from a vault',
        'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
      ),
    ]
  }
  return [result('production', 'secrets', 'ok', `secrets are read from ${secrets.kind}`)]
}
