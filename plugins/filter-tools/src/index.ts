/**
 * @gov/step-filter-tools — the `filter_tools` governance step: narrows the
 * tools offered to the model by allow/deny globs, refuses or drops tool calls
 * to tools not allowed or with arguments failing a JSON Schema, and pins tool
 * definitions per agent.
 */
import { defineStep } from '@gov/core'
import { FilterToolsSettingsSchema } from './settings.js'
import { FilterToolsStep } from './step.js'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

export { ArgumentRules, type ArgumentViolation } from './argument-rules.js'
export { FILTER_TOOLS_ERRORS, TOOL_DEFINITION_CHANGED, TOOL_NOT_ALLOWED } from './errors.js'
export { type FilterToolsSettings, FilterToolsSettingsSchema, resolveSettings } from './settings.js'
export { FilterToolsStep } from './step.js'
export { definitionHash, type PinResult, ToolPins } from './tool-pins.js'

export default defineStep({
  name: 'filter_tools',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.2.0 <0.4.0',
  description:
    'Offers the model only allowed tools, refuses or drops tool calls that are not allowed or fail their argument schema, pins tool definitions',
  settings: FilterToolsSettingsSchema,
  create(settings, services) {
    return new FilterToolsStep(settings, services)
  },
})
