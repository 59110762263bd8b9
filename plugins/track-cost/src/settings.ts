import { type Static, Type } from '@gov/core'

const Usd = (description: string) => Type.Number({ minimum: 0, maximum: 1e9, description })

/** Settings of the track_cost step. `{}` is valid: every property has a default. */
export const TrackCostSettingsSchema = Type.Object(
  {
    budgets: Type.Object(
      {
        agent_daily_usd: Type.Optional(Usd('Spend of one agent per UTC day')),
        agent_monthly_usd: Type.Optional(Usd('Spend of one agent per UTC calendar month')),
        session_usd: Type.Optional(Usd('Spend of one (agent, session)')),
      },
      {
        default: {},
        additionalProperties: false,
        description:
          'Budgets in USD; a call whose estimate would exceed one is refused (429 budget_exceeded). Unset: no limit',
      },
    ),
    prices: Type.Record(
      Type.String({ minLength: 1, maxLength: 256 }),
      Type.Object(
        { input: Usd('USD per million input tokens'), output: Usd('USD per million output tokens') },
        { additionalProperties: false },
      ),
      {
        default: {},
        maxProperties: 10_000,
        description:
          'Model → { input, output } USD per million tokens; wins over the bundled prices (@pydantic/genai-prices)',
      },
    ),
    default_output_tokens: Type.Integer({
      minimum: 0,
      maximum: 10_000_000,
      default: 1024,
      description:
        'Output tokens assumed by the estimate when the request sets no max_tokens / max_completion_tokens',
    }),
    unknown_model: Type.Union([Type.Literal('allow'), Type.Literal('block')], {
      default: 'allow',
      description:
        'A model with no known price: allow (finding model_price_unknown; its cost is not counted) or block (403 model_price_unknown)',
    }),
    hold_s: Type.Integer({
      minimum: 10,
      maximum: 3_600,
      default: 120,
      description:
        'How long the estimate of a call in flight is held against the budgets at least (at most twice this) when its outcome never arrives',
    }),
    session_ttl_s: Type.Integer({
      minimum: 60,
      maximum: 366 * 86_400,
      default: 86_400,
      description: 'A session’s spend is forgotten after this long without a call',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type TrackCostSettings = Static<typeof TrackCostSettingsSchema>

/** The budget names, as in settings, findings and the spend view. */
export type BudgetName = keyof TrackCostSettings['budgets']

/** Settings with every default of the schema filled in, then `overrides` on top (tests and benchmarks). */
export function resolveSettings(overrides: Partial<TrackCostSettings> = {}): TrackCostSettings {
  const defaults = Object.fromEntries(
    Object.entries(TrackCostSettingsSchema.properties).map(([key, schema]) => [
      key,
      structuredClone((schema as unknown as { default: unknown }).default),
    ]),
  ) as TrackCostSettings
  return { ...defaults, ...overrides }
}
