/** Settings of the `detect_injection` step. */
import { type Static, Type } from '@gov/core'

/**
 * Texts above this size go to a worker thread. Measured on the shared 2-core
 * machine (README, Performance): a 32 KB text costs 4–6 ms on the calling
 * thread, a worker round trip about 0.1 ms plus copying the text, so above
 * this size the event loop is never held for more than a few milliseconds.
 */
export const OFFLOAD_ABOVE_BYTES = 32 * 1024

/**
 * The model's combiners are calibrated for thresholds of 0.7 (train/train.ts):
 * at 0.7 the false-positive rate on training sources the model never saw is
 * at most 3 % for prompts and 5 % for tool output, and 0.2–0.5 % on the
 * held-out split and the dev file (README, Quality). The step blocks by
 * default, so the bar sits where false positives are rare.
 */
export const InjectionSettingsSchema = Type.Object(
  {
    threshold: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.7,
      description: 'Block when the score of a user, assistant or other direct text reaches this value.',
    }),
    tool_result_threshold: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.7,
      description: 'Block when the score of a text a tool returned reaches this value.',
    }),
    scan_system: Type.Boolean({
      default: false,
      description: "Also score system prompts (the operator's own text; off by default).",
    }),
    scan_assistant: Type.Boolean({
      default: true,
      description: 'Score earlier assistant turns (the caller sends them, so they can be forged).',
    }),
    scan_tool_results: Type.Boolean({
      default: true,
      description: 'Score text that tools returned (indirect injection).',
    }),
    decode_payloads: Type.Boolean({
      default: true,
      description: 'Decode base64, hex, ROT13, reversed and spaced-out payloads and score what they hide.',
    }),
    allow_list: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      default: [],
      maxItems: 1000,
      description:
        'Terms (case-insensitive) blanked out before scoring, to silence a known false positive; the rest of the text is still scored',
    }),
    allow_patterns: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      default: [],
      maxItems: 200,
      description:
        'Regular expressions (JavaScript syntax, case-insensitive) whose matches are blanked out before scoring; the rest of the text is still scored',
    }),
    cache_size: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: 10_000,
      description: 'Texts whose analysis is kept (LRU); 0 disables the cache.',
    }),
    offload_above_bytes: Type.Integer({
      minimum: 0,
      default: OFFLOAD_ABOVE_BYTES,
      description:
        'Analyse texts longer than this many UTF-8 bytes on a worker thread, off the event loop; 0 keeps every text on the calling thread.',
    }),
    offload_workers: Type.Integer({
      minimum: 1,
      maximum: 16,
      default: 1,
      description: 'Most worker threads one step instance starts for long texts (started on first use).',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings. */
export type InjectionSettings = Static<typeof InjectionSettingsSchema>
