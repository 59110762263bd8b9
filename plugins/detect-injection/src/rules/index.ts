/** Every rule the detector runs, in one list. */
import { EXTRACTION_RULES } from './extraction-rules.js'
import { HIJACK_RULES } from './hijack-rules.js'
import { INDIRECT_RULES } from './indirect-rules.js'
import { META_RULES } from './meta-rules.js'
import { OVERRIDE_RULES } from './override-rules.js'
import { ROLEPLAY_RULES } from './roleplay-rules.js'
import type { Rule } from './rule.js'
import { TOOL_SEGMENT_RULES } from './tool-segment-rules.js'

export type { Rule, RuleCategory, RuleChannel } from './rule.js'

/** All rules: whole-text rules first, then per-segment tool rules. */
export const ALL_RULES: readonly Rule[] = [
  ...OVERRIDE_RULES,
  ...ROLEPLAY_RULES,
  ...EXTRACTION_RULES,
  ...INDIRECT_RULES,
  ...HIJACK_RULES,
  ...META_RULES,
  ...TOOL_SEGMENT_RULES,
]
