import { GovError } from '@gov/core'
import { type Static, type TSchema, Type } from 'typebox'
import { Compile } from 'typebox/compile'

const Id = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' })
const Overrides = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))
const Flags = Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }), { maxItems: 32 })
/** What the pipeline does with content gov cannot scan (`ContentSettings`); each key defaults. */
const Content = Type.Object(
  {
    media: Type.Optional(Type.Union([Type.Literal('pass'), Type.Literal('refuse')])),
    unknown_blocks: Type.Optional(Type.Union([Type.Literal('refuse'), Type.Literal('pass')])),
    stream_release: Type.Optional(Type.Union([Type.Literal('held'), Type.Literal('windowed')])),
    stream_window_chars: Type.Optional(Type.Integer({ minimum: 16, maximum: 65536 })),
    stream_hold_chars: Type.Optional(Type.Integer({ minimum: 0, maximum: 4096 })),
  },
  { additionalProperties: false },
)

/** `POST /pipelines` and `gov-pipeline.yaml`. */
export const PipelineCreate = Type.Object(
  {
    pipeline_id: Id,
    preset: Type.String({ minLength: 1 }),
    overrides: Type.Optional(Overrides),
    allow_flags: Type.Optional(Flags),
    content: Type.Optional(Content),
    /** Accepted in imported files: the file format version and a comment field. */
    version: Type.Optional(Type.Unknown()),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

/** `PUT /pipelines/{id}`. */
export const PipelineUpdate = Type.Object(
  {
    pipeline_id: Type.Optional(Id),
    preset: Type.String({ minLength: 1 }),
    overrides: Type.Optional(Overrides),
    allow_flags: Type.Optional(Flags),
    content: Type.Optional(Content),
  },
  { additionalProperties: false },
)

/** `POST /agents`. */
export const AgentCreate = Type.Object(
  { agent_id: Id, pipeline_id: Type.Optional(Type.Union([Id, Type.Null()])) },
  { additionalProperties: false },
)

/** A path id (pipeline or agent). */
export const PathId = Compile(Id)

/** Compile a schema once; `check` throws 400 `invalid_request` naming the fields. */
export function validator<T extends TSchema>(schema: T) {
  const compiled = Compile(schema)
  return (value: unknown): Static<T> => {
    if (compiled.Check(value)) return value as Static<T>
    const problems = compiled.Errors(value).map((e) => ({ path: e.instancePath || '/', message: e.message }))
    throw new GovError(
      'invalid_request',
      `invalid body: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      400,
      { problems },
    )
  }
}

/** Validate an id from the path; 404 for ids that cannot exist. */
export function pathId(value: string | undefined, kind: string): string {
  if (!value || !PathId.Check(value))
    throw new GovError('not_found', `${kind} ${value ?? ''} does not exist`, 404)
  return value
}
