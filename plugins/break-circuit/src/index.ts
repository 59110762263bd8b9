/**
 * @gov/step-break-circuit — the `break_circuit` governance step: a circuit per
 * provider and model, opened by consecutive upstream failures and shared by
 * every replica through the key-value store.
 */
import { defineStep } from '@gov/core'
import { BreakCircuitSettingsSchema } from './settings.js'
import { BreakCircuitStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { type Admission, CircuitBoard, CircuitState, type Transition } from './circuit-board.js'
export { circuitId } from './circuit-id.js'
export { CIRCUIT_FINDINGS, CIRCUIT_OPEN } from './errors.js'
export { type BreakCircuitSettings, BreakCircuitSettingsSchema, resolveSettings } from './settings.js'
export { BreakCircuitStep, isFailure } from './step.js'

export default defineStep({
  name: 'break_circuit',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  description:
    'Opens a circuit per provider and model after consecutive upstream failures; while open, calls get 503 circuit_open without going upstream',
  settings: BreakCircuitSettingsSchema,
  create(settings, services) {
    return new BreakCircuitStep(settings, services)
  },
})
