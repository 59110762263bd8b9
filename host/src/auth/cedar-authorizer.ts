import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import {
  type AuthorizationAnswer,
  checkParseSchema,
  preparsePolicySet,
  statefulIsAuthorized,
} from '@cedar-policy/cedar-wasm/nodejs'
import { GovError } from '@gov/core'
import { LRUCache } from 'lru-cache'
import type { Logger } from '../logging.js'
import type { Action, Authorizer, Decision, PolicyReport, Principal } from './authorizer.js'
import { type CedarRequest, requestKey, resourceOf, toCedarRequest } from './cedar-request.js'
import { compilePolicySet } from './compile-policy.js'
import { describeProblems, PolicyErrorCodes, PolicyLoadError } from './policy-errors.js'
import { DEFAULT_POLICY_FILE, SCHEMA_FILE } from './policy-files.js'

/** Options of {@link CedarAuthorizer}. */
export interface CedarAuthorizerOptions {
  /** The policy file; default the shipped `policies/default.cedar`. */
  file?: string
  /** The Cedar schema file; default the shipped `policies/gov.cedarschema`. */
  schemaFile?: string
  logger: Logger
  /** Decisions remembered per policy version (distinct principal × action × resource). */
  cacheSize?: number
}

const NO_POLICY: Decision = { allowed: false, code: 'no_policy', policies: [], errors: [] }

// Preparsed policy sets live in the wasm module's memory, shared by every gateway in the process.
let instances = 0

/**
 * The Cedar policy engine behind {@link Authorizer}. The policy file is parsed,
 * validated against gov's schema and preparsed once (`preparsePolicySet`);
 * each decision is one `statefulIsAuthorized` call, or a cache hit: a decision
 * depends only on the policy and the request, so it is remembered until the
 * policy changes. Fails closed: no policy, an unbuildable request, an engine
 * failure or any policy evaluation error is a deny.
 */
export class CedarAuthorizer implements Authorizer {
  readonly file: string
  readonly #schemaFile: string
  readonly #logger: Logger
  readonly #setId = `gov-policy-${++instances}`
  readonly #cache: LRUCache<string, Decision>
  #report: PolicyReport | undefined

  constructor(options: CedarAuthorizerOptions) {
    this.file = options.file ?? DEFAULT_POLICY_FILE
    this.#schemaFile = options.schemaFile ?? SCHEMA_FILE
    this.#logger = options.logger
    this.#cache = new LRUCache({ max: options.cacheSize ?? 10_000 })
    try {
      // Synchronous on purpose: the first request must already find the policy.
      this.#install(readPolicySync(this.file), readSchema(this.#schemaFile))
    } catch (err) {
      this.#logFailure(err, 'no authorization policy loaded: every request is refused')
    }
  }

  get loaded(): boolean {
    return this.#report !== undefined
  }

  /** The loaded policy (file, policy ids, warnings), or undefined. */
  get report(): PolicyReport | undefined {
    return this.#report
  }

  authorize(principal: Principal, action: Action, resource?: string): boolean {
    return this.decide(principal, action, resource).allowed
  }

  decide(principal: Principal, action: Action, resource?: string): Decision {
    if (!this.#report) return NO_POLICY
    const resourceId = resourceOf(action, resource)
    if (resourceId === undefined) {
      return { allowed: false, code: 'forbidden', policies: [], errors: [`${action} needs a resource`] }
    }
    const key = requestKey(principal, action, resourceId)
    const cached = this.#cache.get(key)
    if (cached) return cached
    const decision = this.#evaluate(toCedarRequest(principal, action, resourceId), key)
    this.#cache.set(key, decision)
    return decision
  }

  async reload(): Promise<PolicyReport> {
    try {
      const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw notFound(this.file, err)
      })
      return this.#install(text, readSchema(this.#schemaFile))
    } catch (err) {
      this.#logFailure(
        err,
        this.#report ? 'policy reload refused: the old policy stays' : 'policy reload refused',
      )
      throw err
    }
  }

  #install(text: string, schema: string): PolicyReport {
    const compiled = compilePolicySet(text, schema)
    // Re-preparsing under the same id replaces the set in one synchronous step: no request sees a mix.
    const prepared = preparsePolicySet(this.#setId, { staticPolicies: { ...compiled.policies } })
    if (prepared.type === 'failure') {
      throw new PolicyLoadError(
        PolicyErrorCodes.INVALID,
        'the policy engine refused the policy set',
        prepared.errors.map((e) => ({ message: e.message })),
      )
    }
    this.#cache.clear()
    this.#report = { file: this.file, policies: compiled.ids, warnings: compiled.warnings }
    this.#logger.info({ file: this.file, policies: compiled.ids }, 'authorization policy loaded')
    if (compiled.warnings.length)
      this.#logger.warn({ file: this.file, warnings: compiled.warnings }, 'authorization policy warnings')
    return this.#report
  }

  #evaluate(request: CedarRequest, key: string): Decision {
    let answer: AuthorizationAnswer
    try {
      answer = statefulIsAuthorized({
        principal: request.principal,
        action: request.action,
        resource: request.resource,
        context: {},
        preparsedPolicySetId: this.#setId,
        entities: request.entities,
      })
    } catch (err) {
      return this.#failed(key, [(err as Error).message])
    }
    if (answer.type === 'failure')
      return this.#failed(
        key,
        answer.errors.map((e) => e.message),
      )
    const { decision, diagnostics } = answer.response
    const errors = diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`)
    if (errors.length) {
      // Cedar skips a policy that errors, which could drop a forbid: gov denies instead.
      this.#logger.warn({ errors, request: key.replaceAll('\0', ' ') }, 'policy evaluation error: denied')
    }
    const allowed = decision === 'allow' && errors.length === 0
    return { allowed, code: allowed ? 'allowed' : 'forbidden', policies: diagnostics.reason, errors }
  }

  #failed(key: string, errors: string[]): Decision {
    this.#logger.error({ errors, request: key.replaceAll('\0', ' ') }, 'authorization failed: denied')
    return { allowed: false, code: 'forbidden', policies: [], errors }
  }

  #logFailure(err: unknown, msg: string): void {
    if (err instanceof PolicyLoadError) {
      this.#logger.error(
        { code: err.code, file: this.file, problems: describeProblems(this.file, err.problems) },
        msg,
      )
    } else {
      this.#logger.error({ code: (err as GovError).code, err, file: this.file }, msg)
    }
  }
}

function readPolicySync(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    throw notFound(file, err as NodeJS.ErrnoException)
  }
}

function notFound(file: string, err: NodeJS.ErrnoException): PolicyLoadError {
  return new PolicyLoadError(
    PolicyErrorCodes.NOT_FOUND,
    `cannot read the policy file ${file}: ${err.code ?? err.message}`,
  )
}

function readSchema(file: string): string {
  let schema: string
  try {
    schema = readFileSync(file, 'utf8')
  } catch (err) {
    throw new GovError(
      PolicyErrorCodes.SCHEMA,
      `cannot read gov's Cedar schema ${file}: ${(err as Error).message}`,
      500,
    )
  }
  const parsed = checkParseSchema(schema)
  if (parsed.type === 'failure') {
    throw new GovError(
      PolicyErrorCodes.SCHEMA,
      `gov's Cedar schema does not parse: ${parsed.errors.map((e) => e.message).join('; ')}`,
      500,
    )
  }
  return schema
}
