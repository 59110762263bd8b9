import type { StepServices } from '@gov/core'
import { makeServices } from '@gov/core/testing'
import plugin, { type PiiSettings, type PiiStep } from '../src/index.js'
import { withDefaults } from '../src/settings.js'

/** A ready step instance with default settings plus `overrides`, and its services. */
export async function makeStep(
  overrides: Partial<PiiSettings> = {},
  services: StepServices & { counts: Map<string, number> } = makeServices('detect_pii'),
): Promise<{ step: PiiStep; services: StepServices & { counts: Map<string, number> } }> {
  const step = (await plugin.create(withDefaults(overrides), services)) as PiiStep
  await step.ready()
  return { step, services }
}
