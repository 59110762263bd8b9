import { GovError } from '@gov/core'
import { Ajv, type CodeOptions, type ValidateFunction } from 'ajv'
import { LRUCache } from 'lru-cache'
import { RE2JS } from 're2js'
import safeRegex from 'safe-regex2'
import { CONSTRAIN_OUTPUT_ERRORS } from './errors.js'

/** Where a JSON answer failed its schema: the schema location and keyword, never the answer's values. */
export interface SchemaViolation {
  /** `not_json`, or the JSON Schema keyword that failed. */
  readonly keyword: string
  readonly schemaPath: string
}

/**
 * Schema `pattern`s run on model output, and a request's schema comes from the
 * caller, so neither may stall the event loop: a pattern runs on RE2 (re2js,
 * linear time). Only a pattern RE2 cannot express (lookaround, backreferences)
 * falls back to the native engine, and then only without nested quantifiers
 * (safe-regex2); otherwise the schema does not compile.
 */
const safeRegExp: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string, flags: string): { test(s: string): boolean } => {
    try {
      return RE2JS.compile(pattern)
    } catch {
      if (!safeRegex(pattern)) {
        throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 80))} can backtrack catastrophically`)
      }
      return new RegExp(pattern, flags)
    }
  },
  { code: 'new RegExp' },
)

function newAjv(): Ajv {
  // strict: false accepts vendor keywords found in real schemas; formats are not checked (no ajv-formats).
  // addUsedSchema: false: a caller schema with an `$id` never claims that id for later calls.
  return new Ajv({
    strict: false,
    allErrors: false,
    validateFormats: false,
    addUsedSchema: false,
    code: { regExp: safeRegExp },
  })
}

/** Validate `text` as JSON against `validate`. */
export function checkJson(validate: ValidateFunction, text: string): SchemaViolation | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { keyword: 'not_json', schemaPath: '#' }
  }
  if (validate(value)) return undefined
  const error = validate.errors?.[0]
  return { keyword: error?.keyword ?? 'schema', schemaPath: error?.schemaPath ?? '#' }
}

/** Compile the pipeline's `json_schema` setting once; a bad schema fails at load. */
export function compileSettingSchema(schema: unknown): ValidateFunction {
  try {
    if (typeof schema !== 'object' && typeof schema !== 'boolean') throw new Error('not a schema object')
    return newAjv().compile(schema as object)
  } catch (err) {
    throw new GovError(
      CONSTRAIN_OUTPUT_ERRORS.SCHEMA_INVALID,
      `constrain_output: json_schema is not a valid JSON Schema: ${(err as Error).message}`,
      400,
    )
  }
}

/** Largest request schema compiled, as JSON text. */
export const MAX_REQUEST_SCHEMA_CHARS = 65_536

/**
 * Validators of schemas that callers send with their requests, compiled once
 * per distinct schema (an agent sends the same schema every turn) and kept in
 * an LRU; an evicted schema is removed from Ajv too, so its cache stays bounded.
 */
export class RequestSchemas {
  readonly #ajv = newAjv()
  readonly #cache: LRUCache<string, { validate: ValidateFunction; schema: object }>

  constructor(max = 256) {
    this.#cache = new LRUCache({
      max,
      dispose: (entry) => {
        this.#ajv.removeSchema(entry.schema)
      },
    })
  }

  /** The validator of `schema`, or an Error saying why it cannot be used. */
  validator(schema: unknown): ValidateFunction | Error {
    if (typeof schema !== 'object' || schema === null) return new Error('the schema is not an object')
    const key = JSON.stringify(schema)
    if (key.length > MAX_REQUEST_SCHEMA_CHARS) {
      return new Error(`the schema is larger than ${MAX_REQUEST_SCHEMA_CHARS} characters`)
    }
    const hit = this.#cache.get(key)
    if (hit) return hit.validate
    const copy = JSON.parse(key) as object
    try {
      const validate = this.#ajv.compile(copy)
      this.#cache.set(key, { validate, schema: copy })
      return validate
    } catch (err) {
      this.#ajv.removeSchema(copy)
      return new Error(`the schema does not compile: ${(err as Error).message}`)
    }
  }
}
