/**
 * @gov/step-track-cost — the `track_cost` governance step: prices every
 * upstream call, keeps spend per agent (UTC day and month) and per session,
 * and refuses calls that would exceed a budget.
 */
import { defineStep } from '@gov/core'
import { TrackCostSettingsSchema } from './settings.js'
import { TrackCostStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { BUDGET_EXCEEDED, MODEL_PRICE_UNKNOWN } from './errors.js'
export { Ledger, periodsOf, type Spend, secondsToRenewal } from './ledger.js'
export { Pricing } from './pricing.js'
export {
  type BudgetName,
  resolveSettings,
  type TrackCostSettings,
  TrackCostSettingsSchema,
} from './settings.js'
export { TrackCostStep } from './step.js'

export default defineStep({
  name: 'track_cost',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  description:
    'Prices every upstream call, keeps spend per agent (day, month) and session, refuses calls that would exceed a budget (429 budget_exceeded)',
  settings: TrackCostSettingsSchema,
  create(settings, services) {
    return new TrackCostStep(settings, services)
  },
})
