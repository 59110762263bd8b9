import { type Static, Type } from '@gov/core'

/** Settings of the guard_loops step. `{}` is valid: every property has a default. */
export const GuardLoopsSettingsSchema = Type.Object(
  {
    max_repeats: Type.Integer({
      minimum: 0,
      maximum: 100_000,
      default: 5,
      description:
        'Tool calls with the same tool and the same arguments (JSON normalised) allowed within window_s in one session; the next one is refused. 0: off',
    }),
    window_s: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description: 'Window of max_repeats, from the first of the identical calls',
    }),
    max_tool_calls: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: 0,
      description: 'Tool calls the model may make in one session; the next one is refused. 0: no limit',
    }),
    max_turns: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: 0,
      description:
        'Calls (turns) one session may make; the next one is refused before it goes upstream. 0: no limit',
    }),
    detect_cycles: Type.Boolean({
      default: true,
      description: 'Refuse a tool call that completes cycle_repeats rounds of the same cycle (A→B→A→B…)',
    }),
    cycle_repeats: Type.Integer({
      minimum: 2,
      maximum: 10,
      default: 3,
      description: 'Rounds of one cycle that count as a loop',
    }),
    cycle_max_length: Type.Integer({
      minimum: 2,
      maximum: 8,
      default: 4,
      description:
        'Longest cycle looked for, in tool calls (the session keeps cycle_max_length × cycle_repeats calls)',
    }),
    cycle_by: Type.Union([Type.Literal('call'), Type.Literal('name')], {
      default: 'call',
      description:
        'What must repeat to make a cycle: the whole call (tool and normalised arguments) or only the tool name (catches more, and more legitimate alternations)',
    }),
    ttl_s: Type.Integer({
      minimum: 60,
      maximum: 30 * 86_400,
      default: 3_600,
      description: 'A session’s counts and recent calls are forgotten after this long without a call',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type GuardLoopsSettings = Static<typeof GuardLoopsSettingsSchema>

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<GuardLoopsSettings> = {}): GuardLoopsSettings {
  const defaults = Object.fromEntries(
    Object.entries(GuardLoopsSettingsSchema.properties).map(([key, schema]) => [
      key,
      (schema as unknown as { default: unknown }).default,
    ]),
  ) as GuardLoopsSettings
  return { ...defaults, ...overrides }
}
