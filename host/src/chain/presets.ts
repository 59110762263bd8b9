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

/** The enforcing presets' steps, in chain order, with per-step settings where a preset differs from the defaults. */
function enforcingSteps(settings: Record<string, Record<string, unknown>>): PresetStep[] {
  return [
    'break_circuit',
    'guard_loops',
    'filter_tools',
    'detect_injection',
    'scan_secrets',
    'detect_pii',
    'detect_business',
    'track_taint',
    'constrain_output',
    'track_cost',
    'dedupe',
  ].map((name) => step(name, settings[name]))
}

/**
 * strict's injection thresholds, below the step's 0.7 defaults: on the dev data 0.6 keeps the same
 * false-positive rate on direct prompts, and 0.5 on tool results raises indirect recall from 68% to 86%.
 */
const STRICT_INJECTION: Record<string, unknown> = { threshold: 0.6, tool_result_threshold: 0.5 }

/**
 * detect_pii under action `block` (strict, or the caller flag `pii=block` on any preset): a name refuses
 * the call only at score 0.8 or above, a weaker one is masked instead; an organisation (no person's data)
 * is masked, never refuses; structured findings always refuse. Chosen on the calibration split and the
 * tuning benign prompts (`train/block-threshold.ts` in the package): 0.8 is the highest value before names
 * found by the strong rules (scored 0.8) stop refusing.
 */
const PII_BLOCK: Record<string, unknown> = { block_min_score: 0.8, mask_only_types: ['ORGANIZATION'] }

/** Every taint label: strict's sinks may receive none of them. */
const ALL_TAINT = ['pii', 'secret', 'confidential', 'restricted', 'untrusted']

/**
 * strict's exfiltration sinks for track_taint: tools whose names say they send data out of the
 * organisation. A session that has seen sensitive or untrusted data may not call them.
 */
const STRICT_SINKS: Record<string, string[]> = Object.fromEntries(
  ['send_*', '*_send', '*email*', 'http_*', '*webhook*', 'upload_*', '*_upload', 'post_*'].map((glob) => [
    glob,
    ALL_TAINT,
  ]),
)

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
      step('detect_pii', PII_BLOCK),
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
    steps: enforcingSteps({
      filter_tools: { pin: true },
      detect_pii: PII_BLOCK,
    }),
  },
  strict: {
    name: 'strict',
    description:
      'For regulated data: the standard steps with a lower injection threshold, secrets and personal data blocked instead of masked (a name only at score 0.8 or above, weaker names and organisations masked), confidential business data blocked, a changed tool definition blocked, and sessions that saw sensitive or untrusted data kept from sending tools.',
    mode: 'enforce',
    steps: enforcingSteps({
      detect_injection: STRICT_INJECTION,
      scan_secrets: { action: 'block' },
      detect_pii: { ...PII_BLOCK, action: 'block' },
      detect_business: { block_level: 'confidential' },
      filter_tools: { pin: true, on_definition_change: 'block' },
      track_taint: { sinks: STRICT_SINKS },
    }),
  },
}
