import { GovError } from '@gov/core'
import { Ajv, type ValidateFunction } from 'ajv'
import { FILTER_TOOLS_ERRORS } from './errors.js'
import { compileGlobs, type NameMatcher } from './tool-globs.js'

/** Why a tool call's arguments failed: the rule's glob and where in the schema, never the argument values. */
export interface ArgumentViolation {
  readonly rule: string
  /** `not_json`, or the JSON Schema keyword that failed (`required`, `enum`, `maxLength`, …). */
  readonly keyword: string
  /** Where in the pipeline's schema the check failed (e.g. `#/properties/to/pattern`). */
  readonly schemaPath: string
}

interface CompiledRule {
  readonly glob: string
  readonly matches: NameMatcher
  readonly validate: ValidateFunction
}

/**
 * The `argument_rules` setting, compiled once per pipeline version: a tool
 * call must satisfy every rule whose glob matches its name. Errors report the
 * schema location, which the operator wrote, and never the instance values the
 * model wrote (they may carry data being exfiltrated).
 */
export class ArgumentRules {
  readonly #rules: CompiledRule[]

  constructor(rules: Readonly<Record<string, unknown>>) {
    // strict: false accepts schemas copied from tool definitions with vendor keywords; one Ajv per pipeline version.
    const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false })
    this.#rules = Object.entries(rules).map(([glob, schema]) => {
      let validate: ValidateFunction
      try {
        if (typeof schema !== 'object' && typeof schema !== 'boolean') throw new Error('not a schema object')
        validate = ajv.compile(schema as object)
      } catch (err) {
        throw new GovError(
          FILTER_TOOLS_ERRORS.SCHEMA_INVALID,
          `filter_tools: argument_rules['${glob}'] is not a valid JSON Schema: ${(err as Error).message}`,
          400,
          { rule: glob },
        )
      }
      return { glob, matches: compileGlobs([glob], 'argument_rules'), validate }
    })
  }

  get size(): number {
    return this.#rules.length
  }

  /** The first violation of the rules that apply to `name`, or undefined when the arguments pass (or no rule applies). */
  check(name: string, argumentsJson: string): ArgumentViolation | undefined {
    let parsed: unknown
    let parsedOk: boolean | undefined
    for (const rule of this.#rules) {
      if (!rule.matches(name)) continue
      if (parsedOk === undefined) {
        try {
          parsed = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson)
          parsedOk = true
        } catch {
          parsedOk = false
        }
      }
      if (!parsedOk) return { rule: rule.glob, keyword: 'not_json', schemaPath: '#' }
      if (!rule.validate(parsed)) {
        const error = rule.validate.errors?.[0]
        return { rule: rule.glob, keyword: error?.keyword ?? 'schema', schemaPath: error?.schemaPath ?? '#' }
      }
    }
    return undefined
  }
}
