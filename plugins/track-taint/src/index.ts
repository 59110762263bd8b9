/**
 * @gov/step-track-taint — the `track_taint` governance step: labels a session
 * with what it has seen (pii, secret, confidential, restricted, untrusted) and
 * refuses tool calls to sinks that may not receive those labels.
 */
import { defineStep } from '@gov/core'
import { TrackTaintSettingsSchema } from './settings.js'
import { TrackTaintStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { TAINT_BLOCKED, TRACK_TAINT_ERRORS } from './errors.js'
export {
  type LabelOrigin,
  labelsOfFinding,
  TAINT_LABELS,
  type TaintLabel,
  type UntrustedResult,
  untrustedResults,
} from './labels.js'
export { resolveSettings, type TrackTaintSettings, TrackTaintSettingsSchema } from './settings.js'
export { TrackTaintStep } from './step.js'

export default defineStep({
  name: 'track_taint',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  // The response hook only records labels from the findings: it runs once, on the whole answer.
  answerScope: 'record',
  description:
    'Labels the session with what it has seen (pii, secret, confidential, restricted, untrusted) and refuses tool calls to sinks that may not receive those labels',
  settings: TrackTaintSettingsSchema,
  create(settings, services) {
    return new TrackTaintStep(settings, services)
  },
})
