/**
 * @gov/step-scan-secrets — the `scan_secrets` governance step: finds API keys,
 * tokens, private keys, passwords in URLs and commands, JWTs and high-entropy
 * secret assignments in requests and answers, and redacts, blocks or reports them.
 */
import { defineStep } from '@gov/core'
import { ScanSecretsSettingsSchema } from './settings.js'
import { ACTION_FLAG, ScanSecretsStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { SCAN_SECRETS_ERRORS, SECRET_DETECTED } from './errors.js'
export { SECRET_KIND_IDS, SECRET_KINDS, type SecretKind } from './kinds.js'
export { redactionLabel } from './redact.js'
export type { Detection } from './scanner.js'
export {
  ACTIONS,
  resolveSettings,
  type ScanSecretsSettings,
  ScanSecretsSettingsSchema,
  type SecretAction,
} from './settings.js'
export { ACTION_FLAG, ScanSecretsStep } from './step.js'

export default defineStep({
  name: 'scan_secrets',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.3.0 <0.4.0',
  // A secret in a prefix is a secret in the whole answer (the host holds back a tail margin for split ones).
  answerScope: 'prefix',
  description:
    'Finds API keys, tokens, private keys and passwords in prompts and answers; redacts, blocks or reports them',
  settings: ScanSecretsSettingsSchema,
  flags: { [ACTION_FLAG]: { setting: 'action', values: ['allow', 'redact', 'block'] } },
  create(settings, services) {
    return new ScanSecretsStep(settings, services)
  },
})
