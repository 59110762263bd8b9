import { type Static, Type } from '@gov/core'
import { compilePattern } from './deny-patterns.js'
import { compileSettingSchema } from './schemas.js'

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

/** Settings of the constrain_output step. `{}` is valid: every property has a default. */
export const ConstrainOutputSettingsSchema = Type.Object(
  {
    max_chars: Type.Integer({
      minimum: 0,
      maximum: 100_000_000,
      default: 0,
      description: 'Longest answer text allowed, in characters (UTF-16 code units); 0 means no limit',
    }),
    json_schema: Type.Refine(
      Type.Unknown({
        default: null,
        description:
          'A JSON Schema the answer text must parse and validate against (null: none). Applies to answers with text',
      }),
      ...compiles((schema: unknown) => schema === null || compileSettingSchema(schema)),
    ),
    deny_patterns: Type.Array(
      Type.Refine(
        Type.String({ minLength: 1, maxLength: 1000 }),
        ...compiles((pattern: string) => compilePattern(pattern, 0)),
      ),
      {
        default: [],
        maxItems: 200,
        description:
          'Patterns the answer text must not match, in RE2 syntax (linear-time matching): `source` or `/source/flags` with flags i, s, m',
      },
    ),
    honour_response_format: Type.Boolean({
      default: true,
      description:
        "Also enforce the request's own JSON Schema: OpenAI `response_format: {type: 'json_schema'}`, Anthropic `output_format: {type: 'json_schema'}`",
    }),
    on_violation: Type.Union([Type.Literal('block'), Type.Literal('retry')], {
      default: 'block',
      description:
        'block: 403 output_invalid naming the rule; retry: ask the model once more with the violation as feedback, then block',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type ConstrainOutputSettings = Static<typeof ConstrainOutputSettingsSchema>

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<ConstrainOutputSettings> = {}): ConstrainOutputSettings {
  const defaults = Object.fromEntries(
    Object.entries(ConstrainOutputSettingsSchema.properties).map(([key, schema]) => [
      key,
      structuredClone((schema as unknown as { default: unknown }).default),
    ]),
  ) as ConstrainOutputSettings
  return { ...defaults, ...overrides }
}
