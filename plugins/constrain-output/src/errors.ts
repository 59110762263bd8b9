/** Error and verdict codes of the constrain_output step. */
export const CONSTRAIN_OUTPUT_ERRORS = {
  /** A `deny_patterns` entry is not a valid RE2 pattern (lookaround and backreferences are not RE2). */
  PATTERN_INVALID: 'GOV_ERR_CONSTRAIN_OUTPUT_PATTERN_INVALID',
  /** The `json_schema` setting is not a valid JSON Schema (or has a `pattern` that could backtrack catastrophically). */
  SCHEMA_INVALID: 'GOV_ERR_CONSTRAIN_OUTPUT_SCHEMA_INVALID',
} as const

/** Block (and retry) code: the answer breaks a rule. The reason names the rule, never quotes the answer. */
export const OUTPUT_INVALID = 'output_invalid'

/** Block code (400): the request's own `response_format` schema cannot be used. */
export const RESPONSE_FORMAT_INVALID = 'response_format_invalid'
