/**
 * @gov/step-guard-loops — the `guard_loops` governance step: refuses an agent
 * that loops (the same tool call again and again, a cycle of calls, or more
 * tool calls or turns than a session may make), per session or per agent.
 */
import { defineStep } from '@gov/core'
import { GuardLoopsSettingsSchema } from './settings.js'
import { GuardLoopsStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { callHash } from './call-hash.js'
export { CallHistory, type HistoryEntry } from './call-history.js'
export { type Cycle, findCycle } from './cycles.js'
export { LOOP_DETECTED, type LoopRule } from './errors.js'
export { type GuardLoopsSettings, GuardLoopsSettingsSchema, resolveSettings } from './settings.js'
export { GuardLoopsStep } from './step.js'

export default defineStep({
  name: 'guard_loops',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  description:
    'Refuses loops: the same tool call repeated within a window, cycles of tool calls, more tool calls or turns than a session may make (429 loop_detected)',
  settings: GuardLoopsSettingsSchema,
  create(settings, services) {
    return new GuardLoopsStep(settings, services)
  },
})
