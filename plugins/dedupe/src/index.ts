/**
 * @gov/step-dedupe — the `dedupe` governance step: identical requests of one
 * agent in flight go upstream once, and repeats within a window are answered
 * from the stored answer.
 */
import { defineStep } from '@gov/core'
import { DedupeSettingsSchema } from './settings.js'
import { DedupeStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { bodyDigest, DIGESTED_MIN, isDeterministic, requestKey, StringDigests } from './request-key.js'
export { type DedupeSettings, DedupeSettingsSchema } from './settings.js'
export { DEDUPE_HEADER, DedupeStep } from './step.js'

export default defineStep({
  name: 'dedupe',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.3.0 <0.4.0',
  description:
    'Sends identical in-flight requests of one agent upstream once and answers repeats from the stored answer',
  settings: DedupeSettingsSchema,
  create(settings, services) {
    return new DedupeStep(settings, services)
  },
})
