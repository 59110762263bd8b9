/** Error and verdict codes of the track_taint step. */
export const TRACK_TAINT_ERRORS = {
  /** A glob in `sinks` or `untrusted_tools` is empty or does not compile. */
  GLOB_INVALID: 'GOV_ERR_TRACK_TAINT_GLOB_INVALID',
} as const

/** Block code: a tool call to a sink whose forbidden labels the session (or call) carries. */
export const TAINT_BLOCKED = 'taint_blocked'
