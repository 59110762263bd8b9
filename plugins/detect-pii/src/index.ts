/**
 * @gov/step-detect-pii — finds personal data in every text of a call (e-mail,
 * phone, card, IBAN, SSN, IP, date of birth, street address, and person,
 * place and organisation names), then masks it with session-stable
 * placeholders, blocks the call, or only reports it.
 */
import { defineStep } from '@gov/core'
import { PiiStep } from './pii-step.js'
import { PiiSettings } from './settings.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { PII_WORKER_FAILED } from './analysis-pool.js'
export type { Gazetteer } from './entities/gazetteer.js'
export { PII_MODEL_INVALID } from './entities/ner-model.js'
export { PII_BLOCK_CODE, PiiStep, type PiiStepOptions } from './pii-step.js'
export { type Detection, ENTITY_TYPES, PII_LEVELS, PII_TYPES, type PiiType } from './pii-types.js'
export {
  ACTIONS,
  DEFAULT_PHONE_REGIONS,
  OFFLOAD_ABOVE_BYTES,
  type PiiAction,
  PiiSettings,
} from './settings.js'

export default defineStep({
  name: 'detect_pii',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.3.0 <0.4.0',
  // Masks found in a prefix stay found in the whole; placeholders are restored where they are complete.
  answerScope: 'prefix',
  description:
    'Detects personal data (contact details, financial identifiers, names, places, organisations) and masks, blocks or reports it',
  settings: PiiSettings,
  flags: { pii: { setting: 'action', values: ['allow', 'mask', 'block'] } },
  create(settings, services) {
    return new PiiStep(settings, services)
  },
})
