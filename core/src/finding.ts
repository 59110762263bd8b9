import type { ClassificationLevel } from './classification.js'
import type { MessageSource } from './exchange.js'

/** The phase of a call a hook runs in. */
export type Phase = 'request' | 'upstream' | 'response' | 'tool_call'

/** Where in the text a finding sits. Offsets are UTF-16 code units, end exclusive. */
export interface Span {
  /** {@link TextPart.id} of the part. */
  readonly partId: string
  readonly start: number
  readonly end: number
}

/**
 * Something a step found. Findings never hold the sensitive value itself; the
 * audit trail stores types, scores and levels, not text.
 */
export interface Finding {
  /** Step that reported it (filled in by the host). */
  readonly step: string
  /** Phase it was reported in (filled in by the host). */
  readonly phase: Phase
  /** What was found, e.g. `EMAIL_ADDRESS`, `prompt_injection`, `aws_access_key`. */
  readonly type: string
  /** Confidence 0..1. */
  readonly score: number
  /** Classification level the finding implies. */
  readonly level: ClassificationLevel
  readonly span?: Span
  /** Source of the text it was found in. */
  readonly source?: MessageSource
  /** Message index of the text it was found in. */
  readonly messageIndex?: number
  /** Extra machine-readable detail; never the raw sensitive value. */
  readonly detail?: Record<string, unknown>
}

/** What a step passes to `report()`; the host adds `step` and `phase`. */
export type FindingInput = Omit<Finding, 'step' | 'phase'>
