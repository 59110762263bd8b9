import {
  type DetailedError,
  policySetTextToParts,
  policyToJson,
  type ValidationError,
  validate,
} from '@cedar-policy/cedar-wasm/nodejs'
import { PolicyErrorCodes, PolicyLoadError, type PolicyProblem } from './policy-errors.js'

/** A policy file parsed and validated against gov's schema, ready to be preparsed. */
export interface CompiledPolicySet {
  /** Policy id → policy text, in file order. */
  readonly policies: Readonly<Record<string, string>>
  readonly ids: readonly string[]
  /** Validator warnings, located (`line:column: [id] message`). */
  readonly warnings: readonly string[]
}

/** A policy's text and where it starts in the file (bytes: Cedar reports byte offsets). */
interface Part {
  readonly id: string
  readonly text: string
  readonly byteOffset: number | undefined
}

/**
 * Parse a Cedar policy file and validate it (strict mode) against `schema`.
 * Policies get their `@id("…")` annotation as id (else `policy<N>`), so
 * decisions and errors name them. Throws {@link PolicyLoadError}: `EMPTY` when
 * there is no policy, `INVALID` for parse or validation errors, templates or
 * duplicate ids.
 */
export function compilePolicySet(text: string, schema: string): CompiledPolicySet {
  const bytes = Buffer.from(text, 'utf8')
  const parsed = policySetTextToParts(text)
  if (parsed.type === 'failure') {
    throw new PolicyLoadError(
      PolicyErrorCodes.INVALID,
      'the policy file does not parse',
      parsed.errors.map((e) => locate(bytes, e, 0)),
    )
  }
  if (parsed.policy_templates.length > 0) {
    // An unlinked template decides nothing; refusing it beats silently ignoring what the author wrote.
    throw new PolicyLoadError(PolicyErrorCodes.INVALID, 'policy templates are not supported', [
      { message: 'write static policies (no ?principal / ?resource slots)' },
    ])
  }
  if (parsed.policies.length === 0) {
    throw new PolicyLoadError(PolicyErrorCodes.EMPTY, 'the policy file holds no policy')
  }

  const parts = splitParts(text, parsed.policies)
  const policies: Record<string, string> = {}
  for (const part of parts) {
    if (part.id in policies) {
      throw new PolicyLoadError(PolicyErrorCodes.INVALID, `two policies share the id "${part.id}"`, [
        { message: 'each @id must be unique', policy: part.id, ...lineColumn(bytes, part.byteOffset) },
      ])
    }
    policies[part.id] = part.text
  }

  const checked = validate({
    schema,
    policies: { staticPolicies: policies },
    validationSettings: { mode: 'strict' },
  })
  if (checked.type === 'failure') {
    throw new PolicyLoadError(
      PolicyErrorCodes.INVALID,
      'the policy file cannot be validated',
      checked.errors.map((e) => locate(bytes, e, 0)),
    )
  }
  const byId = new Map(parts.map((p) => [p.id, p]))
  const locateIn = (v: ValidationError) => ({
    ...locate(bytes, v.error, byId.get(v.policyId)?.byteOffset),
    policy: v.policyId,
  })
  if (checked.validationErrors.length > 0) {
    throw new PolicyLoadError(
      PolicyErrorCodes.INVALID,
      "the policy file does not match gov's Cedar schema",
      checked.validationErrors.map(locateIn),
    )
  }
  const warnings = [
    ...checked.validationWarnings.map(locateIn),
    ...checked.otherWarnings.map((e) => locate(bytes, e, undefined)),
  ].map(formatProblem)
  return { policies, ids: parts.map((p) => p.id), warnings }
}

function splitParts(text: string, policies: readonly string[]): Part[] {
  let cursor = 0
  return policies.map((policy, index) => {
    const at = text.indexOf(policy, cursor)
    if (at >= 0) cursor = at + policy.length
    const parsed = policyToJson(policy)
    const annotated = parsed.type === 'success' ? parsed.json.annotations?.id : undefined
    return {
      id: annotated || `policy${index}`,
      text: policy,
      byteOffset: at >= 0 ? Buffer.byteLength(text.slice(0, at)) : undefined,
    }
  })
}

function locate(bytes: Buffer, error: DetailedError, base: number | undefined): PolicyProblem {
  const message = error.help ? `${error.message} (${error.help})` : error.message
  const start = error.sourceLocations?.[0]?.start
  if (base === undefined || start === undefined) return { message }
  return { message, ...lineColumn(bytes, base + start) }
}

function lineColumn(bytes: Buffer, offset: number | undefined): { line?: number; column?: number } {
  if (offset === undefined || offset > bytes.length) return {}
  const lines = bytes.subarray(0, offset).toString('utf8').split('\n')
  return { line: lines.length, column: lines[lines.length - 1].length + 1 }
}

function formatProblem(p: PolicyProblem): string {
  const where = p.line ? `${p.line}:${p.column}: ` : ''
  return `${where}${p.policy ? `[${p.policy}] ` : ''}${p.message}`
}
