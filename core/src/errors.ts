/**
 * Coded errors. Every error gov raises on purpose carries a stable code of the
 * form `GOV_ERR_<AREA>_<WHAT>`; tests and callers match the code, never the
 * message text.
 */
export class GovError extends Error {
  /** Stable code, `GOV_ERR_<AREA>_<WHAT>`. */
  readonly code: string
  /** HTTP status the host answers with when this error reaches a caller. */
  readonly status: number
  /** Machine-readable extra detail (field paths, names, ranges). */
  readonly details: Record<string, unknown> | undefined

  constructor(code: string, message: string, status = 500, details?: Record<string, unknown>) {
    super(message)
    this.name = 'GovError'
    this.code = code
    this.status = status
    this.details = details
  }
}

/**
 * The codes @gov/core and the host raise. Plugins may define their own, with
 * the same `GOV_ERR_` prefix.
 */
export const ErrorCodes = {
  /** A plugin package does not export a valid step plugin object. */
  PLUGIN_INVALID: 'GOV_ERR_PLUGIN_INVALID',
  /** A plugin package named in `GOV_PLUGINS` cannot be imported. */
  PLUGIN_NOT_FOUND: 'GOV_ERR_PLUGIN_NOT_FOUND',
  /** A plugin declares a `core` range that this @gov/core does not satisfy. */
  PLUGIN_CORE_RANGE: 'GOV_ERR_PLUGIN_CORE_RANGE',
  /** Two plugins claim the same step name. */
  PLUGIN_DUPLICATE: 'GOV_ERR_PLUGIN_DUPLICATE',
  /** A pipeline names a step that no loaded plugin provides. */
  PIPELINE_UNKNOWN_STEP: 'GOV_ERR_PIPELINE_UNKNOWN_STEP',
  /** A pipeline names a preset that does not exist. */
  PIPELINE_UNKNOWN_PRESET: 'GOV_ERR_PIPELINE_UNKNOWN_PRESET',
  /** Step settings do not match the step's schema. */
  STEP_SETTINGS_INVALID: 'GOV_ERR_STEP_SETTINGS_INVALID',
  /** A step hook threw and its `on_error` is `fail_closed`. */
  STEP_FAILED: 'GOV_ERR_STEP_FAILED',
} as const
