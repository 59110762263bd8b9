import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_AUDIT_SETTINGS, readAuditSettings } from '../../src/audit/audit-settings.js'
import { EnvSecretSource } from '../../src/secrets/secret-source.js'

const read = (env: NodeJS.ProcessEnv) => readAuditSettings(env, new EnvSecretSource(env))

describe('audit settings', () => {
  it('defaults: checkpoints every 300 s, no sinks', async () => {
    assert.deepEqual(await read({}), DEFAULT_AUDIT_SETTINGS)
  })

  it('reads the sinks, the webhook secret through the secret source', async () => {
    const settings = await read({
      GOV_AUDIT_CHECKPOINT_INTERVAL_S: '0',
      GOV_AUDIT_WEBHOOK_URL: 'https://siem.example/gov',
      GOV_AUDIT_WEBHOOK_SECRET: 's3cret',
      GOV_AUDIT_SYSLOG_URL: 'tcp://[::1]:601',
      GOV_AUDIT_SINK_BATCH: '50',
    })
    assert.equal(settings.checkpointIntervalSeconds, 0)
    assert.equal(settings.webhookSecret, 's3cret')
    assert.equal(settings.syslogUrl, 'tcp://[::1]:601')
    assert.equal(settings.sinkBatch, 50)
  })

  it('refuses unusable values with GOV_ERR_CONFIG_INVALID naming the variable', async () => {
    for (const [name, value] of [
      ['GOV_AUDIT_CHECKPOINT_INTERVAL_S', '-1'],
      ['GOV_AUDIT_CHECKPOINT_INTERVAL_S', '5m'],
      ['GOV_AUDIT_WEBHOOK_URL', 'ftp://siem.example'],
      ['GOV_AUDIT_WEBHOOK_URL', 'not a url'],
      ['GOV_AUDIT_SYSLOG_URL', 'https://siem.example:514'],
      ['GOV_AUDIT_SYSLOG_URL', 'udp://siem.example'],
      ['GOV_AUDIT_SINK_BATCH', '0'],
      ['GOV_AUDIT_SINK_BACKLOG', '1e3'],
      ['GOV_AUDIT_SINK_TIMEOUT_MS', '10'],
    ] as const) {
      await assert.rejects(read({ [name]: value }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'GOV_ERR_CONFIG_INVALID')
        assert.match(err.message, new RegExp(name))
        return true
      })
    }
  })
})
