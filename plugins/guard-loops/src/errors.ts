/** Block code (429) and finding type: a loop rule fired. */
export const LOOP_DETECTED = 'loop_detected'

/** The rules, as named in the block reason, the finding and `gov_loop_detections_total{rule}`. */
export type LoopRule = 'max_repeats' | 'max_tool_calls' | 'max_turns' | 'cycle'
