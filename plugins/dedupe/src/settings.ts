import { type Static, Type } from '@gov/core'

/** Settings of `dedupe`. */
export const DedupeSettingsSchema = Type.Object(
  {
    window_s: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description: 'How long an answer is kept for replay',
    }),
    coalesce: Type.Boolean({
      default: true,
      description: 'Identical requests of one agent in flight go upstream once; the others get that answer',
    }),
    replay: Type.Union([Type.Literal('off'), Type.Literal('deterministic'), Type.Literal('always')], {
      default: 'deterministic',
      description:
        'Answer repeats within the window from the stored answer: never, only for `temperature: 0`, or always',
    }),
    wait_s: Type.Integer({
      minimum: 1,
      maximum: 600,
      default: 120,
      description: 'Longest a coalesced call waits for the leader; then it goes upstream itself',
    }),
    max_answer_bytes: Type.Integer({
      minimum: 1024,
      default: 1_048_576,
      description: 'Answers larger than this are neither shared nor stored',
    }),
  },
  { additionalProperties: false },
)

export type DedupeSettings = Static<typeof DedupeSettingsSchema>
