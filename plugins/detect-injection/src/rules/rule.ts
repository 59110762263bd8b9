/**
 * The shape of a detection rule. Rules are data: an id that findings report
 * (never the matched text), a category, a weight on the logit scale and a
 * pattern. Within a category only the strongest hit counts, so paraphrases of
 * one idea do not add up; categories add up, so an override plus an extraction
 * request scores higher than either alone.
 */

/** What kind of signal a rule gives. `meta` rules lower the score (talk about injection, not injection). */
export type RuleCategory =
  | 'override'
  | 'roleplay'
  | 'extraction'
  | 'addressed'
  | 'delimiter'
  | 'exfiltration'
  | 'dismissal'
  | 'task_switch'
  | 'output_hijack'
  | 'obfuscation'
  | 'tool_instruction'
  | 'meta'

/** Which texts a rule applies to: all of them, or only text tools returned. */
export type RuleChannel = 'any' | 'tool'

/** One detection rule. */
export interface Rule {
  /** Stable id reported in findings, e.g. `override.ignore_previous`. */
  readonly id: string
  readonly category: RuleCategory
  /** Contribution to the logit; negative for `meta`. */
  readonly weight: number
  /** Non-global regular expression, written in lower case (see rx.ts); only the first match is used. */
  readonly pattern: RegExp
  /**
   * Lower-case strings of which every match contains at least one. The rule
   * runs only when one occurs in the text, which keeps benign text cheap
   * (a test checks the needles against every text the tests and the dev set hold).
   */
  readonly needles: readonly string[]
  /** Match against the text as written instead of lower-cased (for names like `DAN`). */
  readonly caseSensitive?: boolean
  /** Default `any`. */
  readonly channel?: RuleChannel
  /**
   * When true the pattern is tested against each line or sentence on its own
   * (patterns anchor with `^`), for instructions planted in data a tool returned.
   */
  readonly perSegment?: boolean
}
