import { type Static, Type } from '@gov/core'

/** Settings of the break_circuit step. `{}` is valid: every property has a default. */
export const BreakCircuitSettingsSchema = Type.Object(
  {
    failure_threshold: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 5,
      description:
        'Consecutive upstream failures (5xx, timeout, reset, unreachable; never 4xx) of one provider and model that open its circuit',
    }),
    window_s: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description:
        'The failures must fall within this many seconds of the first one; older ones are forgotten',
    }),
    open_s: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 30,
      description: 'How long an open circuit refuses calls before it lets one probe through (half-open)',
    }),
    probe_timeout_s: Type.Integer({
      minimum: 1,
      maximum: 3_600,
      default: 30,
      description:
        'How long a half-open probe holds its lock; if no outcome arrives by then (the call was refused by a later step, the caller left), another call may probe',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type BreakCircuitSettings = Static<typeof BreakCircuitSettingsSchema>

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<BreakCircuitSettings> = {}): BreakCircuitSettings {
  const defaults = Object.fromEntries(
    Object.entries(BreakCircuitSettingsSchema.properties).map(([key, schema]) => [
      key,
      (schema as unknown as { default: unknown }).default,
    ]),
  ) as BreakCircuitSettings
  return { ...defaults, ...overrides }
}
