import type { Finding, Message } from '@gov/core'

/** The taint labels, in the order they are listed. */
export const TAINT_LABELS = ['pii', 'secret', 'confidential', 'restricted', 'untrusted'] as const

/** One of {@link TAINT_LABELS}. */
export type TaintLabel = (typeof TAINT_LABELS)[number]

/** Where a label came from: kept with the label in the session, shown to admins. Never the tainted value. */
export interface LabelOrigin {
  /** The step whose finding set it (`track_taint` for an untrusted tool's result). */
  readonly step: string
  /** The finding type (`EMAIL_ADDRESS`, `indirect_prompt_injection`, `untrusted_tool_result`, …). */
  readonly type: string
  /** The call that first carried it. */
  readonly requestId: string
  /** Phase of that call: `request` (the conversation sent) or `response` (the model's answer). */
  readonly phase: string
  /** Message index in that call's conversation, when known. */
  readonly messageIndex?: number
  /** The untrusted tool whose result set it. */
  readonly tool?: string
  /** Milliseconds since the epoch. */
  readonly at: number
}

/** Steps whose findings name a kind of data rather than a level. */
const STEP_LABELS: Readonly<Record<string, TaintLabel>> = {
  detect_pii: 'pii',
  scan_secrets: 'secret',
}

/**
 * The labels one finding implies:
 * - a detect_pii finding → `pii`; a scan_secrets finding → `secret`;
 * - any finding classified `confidential` or `restricted` → that level's label
 *   (detect_business, and PII or secrets of those levels);
 * - injection found in a tool result → `untrusted`.
 */
export function labelsOfFinding(finding: Finding): TaintLabel[] {
  const labels: TaintLabel[] = []
  const byStep = STEP_LABELS[finding.step]
  if (byStep) labels.push(byStep)
  if (finding.level === 'confidential' || finding.level === 'restricted') labels.push(finding.level)
  if (
    finding.type === 'indirect_prompt_injection' ||
    (finding.step === 'detect_injection' && finding.source === 'tool')
  ) {
    labels.push('untrusted')
  }
  return labels
}

/** An untrusted tool's result in the conversation: the tool's name and the message that fed it back. */
export interface UntrustedResult {
  readonly tool: string
  readonly messageIndex: number
}

/**
 * Tool results whose call went to a tool `isUntrusted` accepts. A result names
 * only its call id; the tool's name comes from the assistant tool call with
 * that id earlier in the conversation. One pass over the messages' structure
 * (no text is read).
 */
export function untrustedResults(
  messages: readonly Message[],
  isUntrusted: (tool: string) => boolean,
): UntrustedResult[] {
  const names = new Map<string, string>()
  const found: UntrustedResult[] = []
  for (const message of messages) {
    for (const call of message.toolCalls) names.set(call.id, call.name)
    for (const result of message.toolResults) {
      const tool = names.get(result.toolCallId)
      if (tool !== undefined && isUntrusted(tool)) found.push({ tool, messageIndex: message.index })
    }
  }
  return found
}
