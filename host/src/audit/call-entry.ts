/**
 * The audit entry of one governed call, built from the gateway's call summary.
 * It holds decisions and metadata only: steps with their verdicts and codes,
 * finding types with counts and levels, timings, and the SHA-256 of the
 * request body — never text from the request or the answer, never a finding's
 * detail or a step's error message (either may quote the text).
 */
import type { Finding } from '@gov/core'
import type { CallSummary } from '../gateway/gateway-handler.js'
import { storableText } from './digest.js'
import type { AuditEntry } from './hash-chain.js'
import { isoTime } from './iso-time.js'

/** Outcome of a call in the audit trail. `observed`: allowed only because the call ran in observe mode. */
export type CallAuditOutcome = 'allowed' | 'blocked' | 'observed' | 'error'

/** Build the audit entry of a finished call. */
export function callEntry(summary: CallSummary, id: string, time: Date): AuditEntry {
  const call = summary.call
  const agentId = call?.agentId ?? summary.agentId ?? null
  return {
    id,
    time: isoTime(time),
    kind: 'call',
    actor: agentId === null ? 'anonymous' : `agent:${agentId}`,
    action: 'gateway.call',
    outcome: callOutcome(summary),
    status: summary.status,
    agent_id: agentId,
    session_id: call?.sessionId ?? null,
    pipeline_id: call?.pipelineId ?? summary.chain?.pipelineId ?? null,
    pipeline_version: call ? call.pipelineVersion : (summary.chain?.version ?? null),
    request_id: call?.requestId ?? summary.requestId ?? null,
    token_id: summary.tokenId ?? null,
    classification: summary.classification,
    detail: {
      vendor: summary.vendor,
      model: summary.model === undefined ? null : storableText(summary.model),
      mode: call?.mode ?? null,
      chain: summary.chain?.key ?? null,
      request_sha256: summary.requestSha256 ?? null,
      provider_request_id: summary.providerRequestId ?? null,
      duration_ms: roundMs(summary.durationMs),
      steps_run: summary.state.stepsRun.size,
      decisions: summary.state.decisions.map((d) => ({
        step: d.step,
        phase: d.phase,
        verdict: d.verdict,
        code: d.code === undefined ? null : storableText(d.code),
        enforced: d.enforced,
        error: d.error !== undefined,
        ms: roundMs(d.durationMs),
      })),
      findings: countFindings(summary.state.findings),
    },
  }
}

/** `allowed` becomes `observed` when a block or respond verdict was only recorded (observe mode). */
export function callOutcome(summary: CallSummary): CallAuditOutcome {
  if (summary.outcome !== 'allowed') return summary.outcome
  return summary.state.decisions.some((d) => !d.enforced) ? 'observed' : 'allowed'
}

interface FindingCount {
  step: string
  phase: string
  type: string
  level: string
  count: number
}

/** Findings grouped by step, phase, type and level, in first-seen order: counts, never values or spans. */
function countFindings(findings: readonly Finding[]): FindingCount[] {
  if (findings.length === 0) return []
  const groups = new Map<string, FindingCount>()
  for (const f of findings) {
    const key = JSON.stringify([f.step, f.phase, f.type, f.level])
    const group = groups.get(key)
    if (group) group.count += 1
    else
      groups.set(key, {
        step: f.step,
        phase: f.phase,
        type: storableText(String(f.type)),
        level: f.level,
        count: 1,
      })
  }
  return [...groups.values()]
}

/** Milliseconds to the microsecond: enough for timings, and short in the canonical form. */
function roundMs(ms: number): number {
  return Number.isFinite(ms) ? Math.round(ms * 1000) / 1000 : 0
}
