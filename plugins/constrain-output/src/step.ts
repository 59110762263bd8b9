import type {
  Answer,
  AnswerScope,
  RequestContext,
  ResponseContext,
  StepCounter,
  StepInstance,
  StepServices,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import type { ValidateFunction } from 'ajv'
import { DenyPatterns } from './deny-patterns.js'
import { OUTPUT_INVALID, RESPONSE_FORMAT_INVALID } from './errors.js'
import { checkJson, compileSettingSchema, RequestSchemas } from './schemas.js'
import type { ConstrainOutputSettings } from './settings.js'

/** A broken rule: its name as the caller sees it, and what to tell the model on a retry. */
interface Violation {
  readonly rule: string
  readonly reason: string
  readonly feedback: string
}

const REQUEST_SCHEMA = 'request_schema'

/** The answer's text: every text part (not tool-call arguments), joined. */
export function answerText(answer: Answer): string {
  let text = ''
  for (const part of answer.message.parts) if (part.kind === 'text') text += part.text
  return text
}

/** Any JSON object: what OpenAI's JSON mode (`response_format: {type: 'json_object'}`) promises. */
const JSON_OBJECT = { type: 'object' }

/**
 * The JSON Schema the request itself asks for: OpenAI `response_format`
 * (`json_schema` with a schema, or `json_object` → any object), Anthropic
 * `output_format` (`json_schema`). A `json_schema` without a schema asks for
 * nothing gov can check.
 */
export function requestedSchema(body: Readonly<Record<string, unknown>>): {
  found: boolean
  schema?: unknown
} {
  const format = (body.response_format ?? body.output_format) as Record<string, unknown> | undefined
  if (typeof format !== 'object' || format === null) return { found: false }
  if (format.type === 'json_object') return { found: true, schema: JSON_OBJECT }
  if (format.type !== 'json_schema') return { found: false }
  const openai = format.json_schema as Record<string, unknown> | undefined
  const schema = typeof openai === 'object' && openai !== null ? openai.schema : format.schema
  return schema === undefined ? { found: false } : { found: true, schema }
}

/**
 * One configured constrain_output step. Checks the answer's text, in order:
 * `max_chars`, the pipeline's `json_schema`, the request's own schema, then
 * `deny_patterns`. The first rule broken blocks the call (403 output_invalid
 * naming the rule) or, with `on_violation: retry`, asks the model once more.
 */
export class ConstrainOutputStep implements StepInstance {
  readonly #settings: ConstrainOutputSettings
  readonly #schema: ValidateFunction | undefined
  readonly #patterns: DenyPatterns
  readonly #requestSchemas: RequestSchemas | undefined
  readonly #violations: StepCounter
  /** A schema, a length limit or deny patterns judge the whole answer; without them only the request's schema is left, and that call is held back anyway. */
  readonly answerScope: AnswerScope

  constructor(settings: ConstrainOutputSettings, services: StepServices) {
    this.#settings = settings
    this.answerScope =
      settings.json_schema != null || settings.max_chars > 0 || settings.deny_patterns.length > 0
        ? 'whole'
        : 'prefix'
    this.#schema =
      settings.json_schema === null || settings.json_schema === undefined
        ? undefined
        : compileSettingSchema(settings.json_schema)
    this.#patterns = new DenyPatterns(settings.deny_patterns)
    this.#requestSchemas = settings.honour_response_format ? new RequestSchemas() : undefined
    this.#violations = services.metrics.counter(
      'gov_output_violations_total',
      'Answers the constrain_output step refused or sent back to the model, by rule and action',
      ['rule', 'action'],
    )
  }

  /** Compile the request's own schema before anything goes upstream: a schema gov cannot use is the caller's error. */
  onRequest(ctx: RequestContext): Verdict {
    if (!this.#requestSchemas) return Verdicts.continue()
    // Read through the read-only view (hosts before core 0.3.4: the body), so the host may send the caller's bytes.
    const requested = requestedSchema(ctx.exchange.bodyView ?? ctx.exchange.body)
    if (!requested.found) return Verdicts.continue()
    const validator = this.#requestSchemas.validator(requested.schema)
    if (validator instanceof Error) {
      return Verdicts.block(
        RESPONSE_FORMAT_INVALID,
        `the request's JSON Schema cannot be enforced: ${validator.message}`,
        400,
      )
    }
    ctx.state.set(REQUEST_SCHEMA, validator)
    return Verdicts.continue()
  }

  onBufferedResponse(ctx: ResponseContext): Verdict {
    const violation = this.#check(ctx.answer, ctx.state.get(REQUEST_SCHEMA) as ValidateFunction | undefined)
    if (!violation) return Verdicts.continue()
    const action = this.#settings.on_violation
    this.#violations.inc({ rule: violation.rule.replace(/\[\d+\]$/, ''), action })
    ctx.report({ type: OUTPUT_INVALID, score: 1, level: 'public', detail: { rule: violation.rule, action } })
    return action === 'retry'
      ? Verdicts.retry(violation.feedback, OUTPUT_INVALID, violation.reason)
      : Verdicts.block(OUTPUT_INVALID, violation.reason)
  }

  #check(answer: Answer, requestSchema: ValidateFunction | undefined): Violation | undefined {
    const text = answerText(answer)
    const max = this.#settings.max_chars
    if (max > 0 && text.length > max) {
      return {
        rule: 'max_chars',
        reason: `the answer has ${text.length} characters, more than max_chars (${max})`,
        feedback: `Your previous answer was ${text.length} characters long; the limit is ${max}. Answer again within ${max} characters.`,
      }
    }
    // A turn that only calls tools has no text to hold to a format.
    const schemaApplies = text.trim() !== '' || answer.message.toolCalls.length === 0
    for (const [rule, validate] of [
      ['json_schema', this.#schema],
      ['response_format', requestSchema],
    ] as const) {
      if (!validate || !schemaApplies) continue
      const failed = checkJson(validate, text)
      if (!failed) continue
      const where =
        failed.keyword === 'not_json'
          ? 'is not valid JSON'
          : `fails the schema at ${failed.schemaPath} (${failed.keyword})`
      return {
        rule,
        reason: `the answer ${where} (rule ${rule})`,
        feedback: `Your previous answer ${where}. Answer again with only a JSON value that validates against the required JSON Schema, with no other text.`,
      }
    }
    const denied = this.#patterns.firstMatch(text)
    if (denied >= 0) {
      return {
        rule: `deny_patterns[${denied}]`,
        reason: `the answer matches deny_patterns[${denied}]`,
        feedback:
          'Your previous answer contained content that the output policy does not allow. Answer again without that content.',
      }
    }
    return undefined
  }
}
