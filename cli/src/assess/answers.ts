/** What `gov assess` asks about an agent, and how the answers are read from flags or a prompt. */

/** Kinds of data the agent handles. */
export const DATA_KINDS = ['pii', 'financial', 'health', 'credentials', 'source_code', 'public'] as const
export type DataKind = (typeof DATA_KINDS)[number]

/** What the agent's tools can do, least to most dangerous; `external` can send data out. */
export const TOOL_REACH = ['none', 'read', 'write', 'external'] as const
export type ToolReach = (typeof TOOL_REACH)[number]

/** Who talks to the agent. */
export const USER_KINDS = ['internal', 'external'] as const
export type UserKind = (typeof USER_KINDS)[number]

/** Regulations the data falls under. */
export const REGULATIONS = ['gdpr', 'hipaa', 'pci'] as const
export type Regulation = (typeof REGULATIONS)[number]

/** The complete answers an assessment needs. */
export interface Answers {
  pipelineId: string
  data: DataKind[]
  tools: ToolReach
  untrustedInput: boolean
  users: UserKind
  regulated: Regulation[]
}

/** Same pattern as the host's pipeline ids, so an assessed file always imports. */
export const PIPELINE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

/** A coded error about one answer; the message names the flag and the allowed values. */
export class AnswerError extends Error {
  readonly code = 'GOV_ERR_ASSESS_ANSWER_INVALID'
}

/** The answers' input ended (Ctrl+D, closed pipe): asking again cannot help. */
export class InputEndedError extends AnswerError {}

/**
 * Read a comma list whose every item is one of `allowed`. `none` (when allowed
 * by `noneMeansEmpty`) is the empty list, so "no regulation" can be said explicitly.
 */
export function parseList<T extends string>(
  raw: string,
  allowed: readonly T[],
  flag: string,
  noneMeansEmpty = false,
): T[] {
  const items = raw
    .split(',')
    .map((s) => s.trim().toLowerCase().replaceAll('-', '_'))
    .filter(Boolean)
  if (noneMeansEmpty && items.length === 1 && items[0] === 'none') return []
  const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i))
  if (unknown.length || !items.length) {
    const options = [...allowed, ...(noneMeansEmpty ? ['none'] : [])].join(', ')
    throw new AnswerError(`${flag} takes a comma list of ${options}; got "${raw}"`)
  }
  return [...new Set(items)] as T[]
}

/** Read one of `allowed`. */
export function parseChoice<T extends string>(raw: string, allowed: readonly T[], flag: string): T {
  const value = raw.trim().toLowerCase()
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AnswerError(`${flag} takes one of ${allowed.join(', ')}; got "${raw}"`)
  }
  return value as T
}

/** Read yes/no. */
export function parseYesNo(raw: string, flag: string): boolean {
  const value = raw.trim().toLowerCase()
  if (['y', 'yes', 'true', '1'].includes(value)) return true
  if (['n', 'no', 'false', '0'].includes(value)) return false
  throw new AnswerError(`${flag} takes yes or no; got "${raw}"`)
}

/** Check a pipeline id against the host's id pattern. */
export function parsePipelineId(raw: string): string {
  const value = raw.trim()
  if (!PIPELINE_ID.test(value)) {
    throw new AnswerError(
      `--pipeline-id must start with a letter or digit and use only letters, digits and . _ : - (at most 128); got "${raw}"`,
    )
  }
  return value
}
