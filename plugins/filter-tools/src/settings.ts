import { type Static, Type } from '@gov/core'
import { ArgumentRules } from './argument-rules.js'

/**
 * A check for `Type.Refine` that runs `compile` and passes when it does not
 * throw, so pipeline creation refuses what `create` would (400
 * GOV_ERR_STEP_SETTINGS_INVALID naming the problem) instead of the first call.
 */
function compiles<T>(compile: (value: T) => unknown): [(value: T) => boolean, (value: T) => string] {
  const problem = (value: T): string | undefined => {
    try {
      compile(value)
      return undefined
    } catch (err) {
      return (err as Error).message
    }
  }
  return [(value) => problem(value) === undefined, (value) => problem(value) ?? 'invalid']
}

/** Settings of the filter_tools step. `{}` is valid: every property has a default. */
export const FilterToolsSettingsSchema = Type.Object(
  {
    allow: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      default: ['*'],
      maxItems: 1000,
      description: 'Tool-name globs the model may be offered and call (`*` any run of characters, `?` one)',
    }),
    deny: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      default: [],
      maxItems: 1000,
      description: 'Tool-name globs never offered nor callable; deny wins over allow',
    }),
    on_denied_call: Type.Union([Type.Literal('block'), Type.Literal('drop')], {
      default: 'block',
      description:
        'A tool call in the answer that is not allowed or fails its argument rule: block (403 tool_not_allowed) or drop it from the answer',
    }),
    argument_rules: Type.Refine(
      Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.Unknown(), {
        default: {},
        description:
          'Tool-name glob → JSON Schema the arguments of a matching tool call must satisfy (every matching rule applies)',
      }),
      ...compiles((rules: Record<string, unknown>) => new ArgumentRules(rules)),
    ),
    pin: Type.Boolean({
      default: false,
      description:
        'Record a hash of each offered tool definition per agent on first sight and report tool_definition_changed when it differs later',
    }),
    on_definition_change: Type.Union([Type.Literal('flag'), Type.Literal('block')], {
      default: 'flag',
      description:
        'With pin: flag (finding only) or block (403 tool_definition_changed) a changed definition',
    }),
    pin_ttl_s: Type.Integer({
      minimum: 60,
      maximum: 366 * 86_400,
      default: 30 * 86_400,
      description: 'How long a pinned definition is kept; after it, the next definition seen is pinned anew',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type FilterToolsSettings = Static<typeof FilterToolsSettingsSchema>

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<FilterToolsSettings> = {}): FilterToolsSettings {
  const defaults = Object.fromEntries(
    Object.entries(FilterToolsSettingsSchema.properties).map(([key, schema]) => [
      key,
      structuredClone((schema as unknown as { default: unknown }).default),
    ]),
  ) as FilterToolsSettings
  return { ...defaults, ...overrides }
}
