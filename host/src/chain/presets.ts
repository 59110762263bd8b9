import type { Mode } from '@gov/core'

/** One step of a preset, in chain order, with the preset's settings for it. */
export interface PresetStep {
  readonly name: string
  readonly settings: Readonly<Record<string, unknown>>
}

/** A named base configuration a pipeline starts from. */
export interface Preset {
  readonly name: string
  readonly description: string
  readonly mode: Mode
  readonly steps: readonly PresetStep[]
}

const step = (name: string, settings: Record<string, unknown> = {}): PresetStep => ({ name, settings })

/**
 * The presets. Order is chain order: cheap gates first (circuit, loops, tools),
 * then the content detectors (injection before PII so the injection detector
 * sees the text as the caller wrote it), then session and cost tracking, and
 * de-duplication last so it keys on the governed request. Steps whose package
 * is not installed are listed by the pipeline API and skipped with a warning.
 */
export const PRESETS: Readonly<Record<string, Preset>> = {
  observe: {
    name: 'observe',
    description: 'Every detector runs and every decision is recorded, but nothing is blocked or changed.',
    mode: 'observe',
    steps: [
      step('filter_tools'),
      step('detect_injection'),
      step('scan_secrets'),
      step('detect_pii'),
      step('detect_business'),
      step('track_taint'),
      step('track_cost'),
    ],
  },
  standard: {
    name: 'standard',
    description:
      'Enforcing defaults: blocks injection, redacts secrets, masks PII and restores it in the answer, tracks taint, loops, cost and duplicates.',
    mode: 'enforce',
    steps: [
      step('break_circuit'),
      step('guard_loops'),
      step('filter_tools'),
      step('detect_injection'),
      step('scan_secrets'),
      step('detect_pii'),
      step('detect_business'),
      step('track_taint'),
      step('constrain_output'),
      step('track_cost'),
      step('dedupe'),
    ],
  },
  strict: {
    name: 'strict',
    description:
      'For regulated data: the standard steps with lower detection thresholds, and PII and secrets blocked instead of masked.',
    mode: 'enforce',
    steps: [
      step('break_circuit'),
      step('guard_loops'),
      step('filter_tools'),
      step('detect_injection'),
      step('scan_secrets'),
      step('detect_pii'),
      step('detect_business'),
      step('track_taint'),
      step('constrain_output'),
      step('track_cost'),
      step('dedupe'),
    ],
  },
}
