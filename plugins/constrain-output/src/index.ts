/**
 * @gov/step-constrain-output — the `constrain_output` governance step: holds
 * the answer's text to a length limit, a JSON Schema (the pipeline's or the
 * request's own `response_format`) and deny patterns; blocks or asks the model
 * once more.
 */
import { defineStep } from '@gov/core'
import { ConstrainOutputSettingsSchema } from './settings.js'
import { ConstrainOutputStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { compilePattern, DenyPatterns } from './deny-patterns.js'
export { CONSTRAIN_OUTPUT_ERRORS, OUTPUT_INVALID, RESPONSE_FORMAT_INVALID } from './errors.js'
export { MAX_REQUEST_SCHEMA_CHARS, RequestSchemas, type SchemaViolation } from './schemas.js'
export { type ConstrainOutputSettings, ConstrainOutputSettingsSchema, resolveSettings } from './settings.js'
export { answerText, ConstrainOutputStep, requestedSchema } from './step.js'

export default defineStep({
  name: 'constrain_output',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  description:
    "Holds the answer's text to max_chars, a JSON Schema (the pipeline's or the request's response_format) and deny patterns; blocks or retries once",
  settings: ConstrainOutputSettingsSchema,
  create(settings, services) {
    return new ConstrainOutputStep(settings, services)
  },
})
