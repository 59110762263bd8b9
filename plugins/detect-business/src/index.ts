/**
 * `detect_business` — finds business-confidential data an admin describes
 * (declared terms and identifier patterns), confidentiality markings and
 * financial figures in context, in every text of the request and the answer;
 * blocks at or above `block_level`, reports or masks below it.
 */
import { defineStep } from '@gov/core'
import { ACTION_FLAG, BusinessStep } from './business-step.js'
import { SettingsSchema } from './settings.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { BusinessDetector } from './business-detector.js'
export { ACTION_FLAG, BLOCK_CODE, BusinessStep, CACHE_METRIC } from './business-step.js'
export type { BusinessFindingType, Detection } from './detection.js'
export { FindingTypes } from './detection.js'
export type { MarkingEntry, MarkingStrength } from './marking-list.js'
export { BUILT_IN_MARKINGS } from './marking-list.js'
export { MAX_BACKTRACK_PRODUCT, MAX_PATTERN_LENGTH, MAX_REPEAT, type UnsafeReason } from './safe-pattern.js'
export type {
  BelowBlockAction,
  BusinessSettings,
  BusinessTerm,
  ExtraMarking,
  IdentifierPattern,
} from './settings.js'
export { SettingsSchema } from './settings.js'

export default defineStep({
  name: 'detect_business',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.3.0 <0.4.0',
  // Markers and terms are judged where they occur; a prefix verdict holds for the whole.
  answerScope: 'prefix',
  description:
    'Detects declared business terms and identifiers, confidentiality markings and financial figures; blocks, reports or masks them by classification level',
  settings: SettingsSchema,
  flags: { [ACTION_FLAG]: { setting: 'action', values: ['report', 'mask'] } },
  create(settings, services) {
    return new BusinessStep(settings, services)
  },
})
