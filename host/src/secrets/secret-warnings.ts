import type { SecretProblem } from './secret-source.js'

/**
 * `/health` warnings about secrets. In production, secrets not loaded from
 * Vault are production-unsafe: either Vault is not configured at all, or a
 * secret could not be loaded. A secret served from the cache because Vault
 * failed is reported everywhere, so operators see a degraded Vault early.
 */
export function secretWarnings(env: string, kind: string, problems: readonly SecretProblem[]): string[] {
  const production = env === 'production'
  const warnings: string[] = []
  if (production && kind === 'env') {
    warnings.push(
      'production_unsafe: Vault is not configured (VAULT_ADDR is unset); secrets are read from the process environment',
    )
  }
  for (const p of problems) {
    if (p.stale) {
      warnings.push(
        `vault_degraded: ${p.name} is served from the cache; the last Vault read failed (${p.code})`,
      )
    } else {
      warnings.push(
        `${production ? 'production_unsafe' : 'secret_not_loaded'}: ${p.name} could not be loaded from Vault (${p.code})`,
      )
    }
  }
  return warnings
}
