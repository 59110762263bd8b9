import { GovError } from '@gov/core'

/** Stable codes of policy loading. */
export const PolicyErrorCodes = {
  /** The policy file cannot be read (missing, unreadable). */
  NOT_FOUND: 'GOV_ERR_POLICY_NOT_FOUND',
  /** The policy file holds no policy: Cedar would deny everything, so gov treats it as no policy. */
  EMPTY: 'GOV_ERR_POLICY_EMPTY',
  /** The policy file does not parse, or does not validate against gov's Cedar schema. */
  INVALID: 'GOV_ERR_POLICY_INVALID',
  /** gov's own Cedar schema cannot be read or parsed (a broken installation). */
  SCHEMA: 'GOV_ERR_POLICY_SCHEMA',
} as const

/** One thing wrong with a policy file, located where the parser or validator could. */
export interface PolicyProblem {
  readonly message: string
  readonly policy?: string
  readonly line?: number
  readonly column?: number
}

/** A policy file that cannot be loaded. Answered as 400 by the reload endpoint, with the problems. */
export class PolicyLoadError extends GovError {
  constructor(
    code: string,
    message: string,
    readonly problems: readonly PolicyProblem[] = [],
  ) {
    super(code, message, 400, problems.length ? { problems } : undefined)
  }
}

/** `file:line:column: message` lines, for logs. */
export function describeProblems(file: string, problems: readonly PolicyProblem[]): string[] {
  return problems.map((p) => {
    const where = p.line ? `${file}:${p.line}:${p.column ?? 1}` : file
    return `${where}: ${p.policy ? `[${p.policy}] ` : ''}${p.message}`
  })
}
