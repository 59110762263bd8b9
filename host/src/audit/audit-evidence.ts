/**
 * Audit evidence of one gateway: the checkpoint signer and the SIEM sinks,
 * built from {@link AuditSettings}; started after the token key is loaded and
 * closed before the store.
 */
import type { JSONWebKeySet } from 'jose'
import type { Logger } from '../logging.js'
import type { GovMetrics } from '../metrics/metrics.js'
import type { Store } from '../storage/store.js'
import type { AuditSettings } from './audit-settings.js'
import { AuditSink } from './audit-sink.js'
import type { AuditTrail } from './audit-trail.js'
import type { CheckpointSigner } from './checkpoint.js'
import { AuditCheckpoints } from './checkpoint-service.js'
import { SyslogTransport, WebhookTransport } from './sink-transports.js'

export interface AuditEvidenceOptions {
  settings: AuditSettings
  store: Store
  audit: AuditTrail
  signer: CheckpointSigner & { jwks(): Promise<JSONWebKeySet> }
  issuer: string
  metrics: GovMetrics
  logger: Logger
}

export class AuditEvidence {
  readonly checkpoints: AuditCheckpoints
  readonly sinks: readonly AuditSink[]
  #unsubscribe: (() => void)[] = []

  constructor(o: AuditEvidenceOptions) {
    this.checkpoints = new AuditCheckpoints({
      store: o.store,
      signer: o.signer,
      issuer: o.issuer,
      intervalSeconds: o.settings.checkpointIntervalSeconds,
      logger: o.logger,
    })
    const counter = o.metrics.counter(
      'gov_audit_sink_records_total',
      'Audit records forwarded to a SIEM sink, by sink and result (sent, failed attempt, dropped from a full queue)',
      ['sink', 'result'],
    )
    const sinks: AuditSink[] = []
    const common = {
      store: o.store,
      counter,
      logger: o.logger,
      batch: o.settings.sinkBatch,
      backlog: o.settings.sinkBacklog,
    }
    if (o.settings.webhookUrl) {
      sinks.push(
        new AuditSink({
          ...common,
          transport: new WebhookTransport(
            o.settings.webhookUrl,
            o.settings.webhookSecret,
            o.settings.sinkTimeoutMs,
          ),
        }),
      )
    }
    if (o.settings.syslogUrl) {
      sinks.push(
        new AuditSink({
          ...common,
          transport: new SyslogTransport(o.settings.syslogUrl, o.settings.sinkTimeoutMs),
        }),
      )
    }
    this.sinks = sinks
    for (const sink of sinks) this.#unsubscribe.push(o.audit.onCommitted((records) => sink.enqueue(records)))
  }

  /** Start the checkpoint interval. */
  start(): void {
    this.checkpoints.start()
  }

  /** Stop signing and forwarding (records still queued in a sink are logged as undelivered). */
  async close(): Promise<void> {
    for (const stop of this.#unsubscribe.splice(0)) stop()
    await this.checkpoints.stop()
    await Promise.all(this.sinks.map((s) => s.close()))
  }
}
