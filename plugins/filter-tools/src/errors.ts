/** Error and verdict codes of the filter_tools step. */
export const FILTER_TOOLS_ERRORS = {
  /** An `argument_rules` schema does not compile. */
  SCHEMA_INVALID: 'GOV_ERR_FILTER_TOOLS_SCHEMA_INVALID',
  /** A glob in `allow`, `deny` or `argument_rules` is empty or does not compile. */
  GLOB_INVALID: 'GOV_ERR_FILTER_TOOLS_GLOB_INVALID',
} as const

/** Block code: a tool (or a forced `tool_choice`, or a tool call in the answer) the pipeline does not allow. */
export const TOOL_NOT_ALLOWED = 'tool_not_allowed'

/** Block code and finding type: an offered tool's definition differs from the one first pinned for the agent. */
export const TOOL_DEFINITION_CHANGED = 'tool_definition_changed'
