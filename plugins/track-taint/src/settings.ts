import { type Static, Type } from '@gov/core'

// Written out (not mapped from TAINT_LABELS) so the static type keeps the literal labels.
const Label = Type.Union(
  [
    Type.Literal('pii'),
    Type.Literal('secret'),
    Type.Literal('confidential'),
    Type.Literal('restricted'),
    Type.Literal('untrusted'),
  ],
  { description: 'A taint label' },
)

/** Settings of the track_taint step. `{}` is valid: every property has a default. */
export const TrackTaintSettingsSchema = Type.Object(
  {
    sinks: Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.Array(Label, { maxItems: 5 }), {
      default: {},
      description:
        'Tool-name glob → labels a call to a matching tool may not receive (403 taint_blocked when the session carries one)',
    }),
    untrusted_tools: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      default: [],
      maxItems: 1000,
      description:
        'Tool-name globs whose results are untrusted input: feeding one back labels the session untrusted',
    }),
    ttl_s: Type.Integer({
      minimum: 60,
      maximum: 366 * 86_400,
      default: 86_400,
      description: 'Labels are forgotten this long after the session was last used (sliding)',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type TrackTaintSettings = Static<typeof TrackTaintSettingsSchema>

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<TrackTaintSettings> = {}): TrackTaintSettings {
  const defaults = Object.fromEntries(
    Object.entries(TrackTaintSettingsSchema.properties).map(([key, schema]) => [
      key,
      structuredClone((schema as unknown as { default: unknown }).default),
    ]),
  ) as TrackTaintSettings
  return { ...defaults, ...overrides }
}
