import type { AgentActivity } from '../agents/activity.js'
import type { AuditTrail } from '../audit/audit-trail.js'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { CallSummary } from './call-record.js'

/**
 * Records a finished call: the fleet activity, the duration metric, one log
 * line, and the audit record — durable before the answer is released. A failed
 * audit append rejects, and the gateway then fails the call closed
 * (`audit_unavailable`): it never releases an unrecorded answer.
 */
export class CallRecorder {
  constructor(
    private readonly deps: {
      logger: Logger
      metrics: GovMetrics
      activity: AgentActivity
      audit: Pick<AuditTrail, 'recordCall'>
    },
  ) {}

  /** Not an async function: the audit append's own promise is returned (one promise and hop less per call); a throw still rejects. */
  record(s: CallSummary): Promise<void> {
    try {
      return this.#record(s)
    } catch (err) {
      return Promise.reject(err)
    }
  }

  #record(s: CallSummary): Promise<void> {
    const { logger, metrics, activity, audit } = this.deps
    if (s.call) activity.record(s.call.agentId, s.outcome, s.state.findings.length > 0)
    metrics.requestTimer(s.vendor, s.outcome).observe(s.durationMs / 1000)
    const level = s.outcome === 'allowed' ? 'debug' : 'info'
    // Allowed calls log at debug: build the line only when someone reads it (hot path).
    if (logger.isLevelEnabled(level)) {
      logger[level](
        {
          requestId: s.requestId,
          agent: s.call?.agentId ?? s.agentId,
          session: s.call?.sessionId,
          pipeline: s.chain?.key,
          mode: s.call?.mode,
          outcome: s.outcome,
          status: s.status,
          classification: s.classification,
          steps: s.state.stepsRun.size,
          findings: s.state.findings.map((f) => `${f.step}:${f.type}`),
          decisions: s.state.decisions.filter((d) => d.verdict !== 'continue' || d.error),
          tokenId: s.tokenId,
          ms: Math.round(s.durationMs * 100) / 100,
        },
        'call',
      )
    }
    return audit.recordCall(s) as Promise<unknown> as Promise<void>
  }
}
