/** Error and verdict codes of the constrain_output step. */
export const CONSTRAIN_OUTPUT_ERRORS = {
  /** A `deny_patterns` entry does not compile as a regular expression. */
  PATTERN_INVALID: 'GOV_ERR_CONSTRAIN_OUTPUT_PATTERN_INVALID',
  /** A `deny_patterns` entry (or a `pattern` in a schema) could backtrack catastrophically (nested quantifiers). */
  PATTERN_UNSAFE: 'GOV_ERR_CONSTRAIN_OUTPUT_PATTERN_UNSAFE',
  /** The `json_schema` setting is not a valid JSON Schema. */
  SCHEMA_INVALID: 'GOV_ERR_CONSTRAIN_OUTPUT_SCHEMA_INVALID',
} as const

/** Block (and retry) code: the answer breaks a rule. The reason names the rule, never quotes the answer. */
export const OUTPUT_INVALID = 'output_invalid'

/** Block code (400): the request's own `response_format` schema cannot be used. */
export const RESPONSE_FORMAT_INVALID = 'response_format_invalid'
