/**
 * `detect_injection`: scores every text of a request for prompt injection and
 * jailbreaks (rules in several languages, decoding of hidden payloads, and a
 * linear model shipped with the package) and blocks at a threshold. Text that
 * tools returned is scored as indirect injection with its own threshold.
 */
import { defineStep } from '@gov/core'
import type { InjectionDetector } from './detector.js'
import { createInstance } from './instance.js'
import { loadDetector } from './model-file.js'
import { InjectionSettingsSchema } from './settings.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { POOL_CLOSED, WORKER_FAILED } from './analysis-pool.js'
export type { Analysis, AnalyzeOptions } from './detector.js'
export { InjectionDetector } from './detector.js'
export type { InjectionInstance } from './instance.js'
export { DIRECT_FINDING, INDIRECT_FINDING, INJECTION_DETECTED } from './instance.js'
export type { Channel } from './match-rules.js'
export { DEFAULT_MODEL_URL, loadDetector, MODEL_INVALID } from './model-file.js'
export type { InjectionSettings } from './settings.js'
export { InjectionSettingsSchema, OFFLOAD_ABOVE_BYTES } from './settings.js'

// One detector per process: the weights are read once and shared by every pipeline.
let shared: InjectionDetector | undefined

export default defineStep({
  name: 'detect_injection',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.3.0 <0.4.0',
  description: 'Scores every text of a request for prompt injection and jailbreaks and blocks at a threshold',
  settings: InjectionSettingsSchema,
  create(settings, services) {
    shared ??= loadDetector()
    return createInstance(settings, services, shared)
  },
})
