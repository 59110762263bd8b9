/**
 * Settings of audit evidence: signed checkpoints and the SIEM sinks.
 *
 * | variable                           | meaning                                                      | default |
 * |------------------------------------|--------------------------------------------------------------|---------|
 * | `GOV_AUDIT_CHECKPOINT_INTERVAL_S`  | seconds between signed checkpoints; 0 = only on demand       | 300     |
 * | `GOV_AUDIT_WEBHOOK_URL`            | POST batches of new records (JSON) here                      | off     |
 * | `GOV_AUDIT_WEBHOOK_SECRET`         | HMAC-SHA256 key of `x-gov-signature` (secret source)         | none    |
 * | `GOV_AUDIT_SYSLOG_URL`             | `udp://host:514` or `tcp://host:601`: RFC 5424 messages      | off     |
 * | `GOV_AUDIT_SINK_BATCH`             | most records per webhook POST                                | 100     |
 * | `GOV_AUDIT_SINK_BACKLOG`           | most records a sink holds while its receiver is down         | 10000   |
 * | `GOV_AUDIT_SINK_TIMEOUT_MS`        | deadline of one delivery                                     | 5000    |
 */
import { GovError } from '@gov/core'
import type { SecretSource } from '../secrets/secret-source.js'

export const WEBHOOK_SECRET = 'GOV_AUDIT_WEBHOOK_SECRET'

export interface AuditSettings {
  readonly checkpointIntervalSeconds: number
  readonly webhookUrl: string | undefined
  readonly webhookSecret: string | undefined
  readonly syslogUrl: string | undefined
  readonly sinkBatch: number
  readonly sinkBacklog: number
  readonly sinkTimeoutMs: number
}

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = {
  checkpointIntervalSeconds: 300,
  webhookUrl: undefined,
  webhookSecret: undefined,
  syslogUrl: undefined,
  sinkBatch: 100,
  sinkBacklog: 10_000,
  sinkTimeoutMs: 5000,
}

function invalid(message: string): GovError {
  return new GovError('GOV_ERR_CONFIG_INVALID', message, 500)
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return value
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: RegExp, example: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  if (!URL.canParse(raw) || !protocols.test(new URL(raw).protocol)) {
    throw invalid(`${name} must be a URL like ${example}`)
  }
  return raw
}

/** Read the audit settings; the webhook secret through the secret source. */
export async function readAuditSettings(
  env: NodeJS.ProcessEnv,
  secrets: SecretSource,
): Promise<AuditSettings> {
  const webhookUrl = url(env, 'GOV_AUDIT_WEBHOOK_URL', /^https?:$/, 'https://siem.example/gov')
  const syslogUrl = url(env, 'GOV_AUDIT_SYSLOG_URL', /^(udp|tcp):$/, 'udp://127.0.0.1:514')
  if (syslogUrl && !new URL(syslogUrl).port) throw invalid('GOV_AUDIT_SYSLOG_URL must name a port')
  return {
    checkpointIntervalSeconds: integer(env, 'GOV_AUDIT_CHECKPOINT_INTERVAL_S', 300, 0, 86_400),
    webhookUrl,
    webhookSecret: webhookUrl ? await secrets.get(WEBHOOK_SECRET) : undefined,
    syslogUrl,
    sinkBatch: integer(env, 'GOV_AUDIT_SINK_BATCH', 100, 1, 1000),
    sinkBacklog: integer(env, 'GOV_AUDIT_SINK_BACKLOG', 10_000, 1, 1_000_000),
    sinkTimeoutMs: integer(env, 'GOV_AUDIT_SINK_TIMEOUT_MS', 5000, 100, 120_000),
  }
}
