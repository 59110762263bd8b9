import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { HealthMonitor } from '../../src/monitor/health-monitor.js'
import { readMonitorSettings } from '../../src/monitor/monitor-settings.js'
import { makeTestCa, startTestGateway, type TestCa } from '../../src/testing/index.js'

/** Log lines written by the monitor, parsed. */
function captureLogs(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) })
  return { logger, lines }
}

async function gauge(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get()
  const match = metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
  assert.ok(match, `${name} ${JSON.stringify(labels)} is exported`)
  return match.value
}

describe('HealthMonitor', () => {
  let soon: TestCa
  let later: TestCa
  before(() => {
    soon = makeTestCa({ days: 10 })
    later = makeTestCa({ days: 400 })
  })
  after(() => {
    soon.close()
    later.close()
  })

  it('alerts on a CA expiring within 30 days and on readiness, to the log and the gauge', async () => {
    const { logger, lines } = captureLogs()
    const registry = new Registry()
    const settings = { ...readMonitorSettings({}), caFile: soon.caCert, diskPaths: [soon.dir] }
    let failing: string[] = ['redis=error']
    const monitor = new HealthMonitor({
      settings,
      logger,
      registry,
      ready: async () => ({ ok: failing.length === 0, failing }),
    })
    const findings = await monitor.run()
    assert.equal(findings.find((f) => f.check === 'internal_ca')?.status, 'alert')
    assert.equal(findings.find((f) => f.check === 'readiness')?.status, 'alert')
    assert.equal(await gauge(registry, 'gov_monitor_alert', { check: 'internal_ca' }), 1)
    assert.equal(await gauge(registry, 'gov_monitor_alert', { check: 'readiness' }), 1)
    const days = await gauge(registry, 'gov_internal_ca_expiry_days')
    assert.ok(days >= 9 && days <= 10, String(days))
    const alerts = lines.filter((l) => l.alert === true)
    assert.deepEqual(alerts.map((l) => l.check).sort(), ['internal_ca', 'readiness'])
    assert.ok(
      alerts.every((l) => l.level === 50),
      'alerts are logged at error level',
    )

    failing = []
    await monitor.run()
    assert.equal(await gauge(registry, 'gov_monitor_alert', { check: 'readiness' }), 0)
    assert.ok(
      lines.some((l) => l.alert === false && l.check === 'readiness'),
      'the clearing is logged',
    )
  })

  it('exports no CA expiry gauge without an internal CA (an unset gauge would read 0 days)', async () => {
    const registry = new Registry()
    const monitor = new HealthMonitor({
      settings: { ...readMonitorSettings({}), caFile: undefined, diskPaths: [later.dir] },
      logger: captureLogs().logger,
      registry,
      ready: async () => ({ ok: true, failing: [] }),
    })
    await monitor.run()
    assert.equal(registry.getSingleMetric('gov_internal_ca_expiry_days'), undefined)
    assert.doesNotMatch(await registry.metrics(), /gov_internal_ca_expiry_days/)
  })

  it('is quiet when the CA has long to live and the disk has room', async () => {
    const { logger, lines } = captureLogs()
    const registry = new Registry()
    const monitor = new HealthMonitor({
      settings: { ...readMonitorSettings({}), caFile: later.caCert, diskPaths: [later.dir] },
      logger,
      registry,
      ready: async () => ({ ok: true, failing: [] }),
    })
    const findings = await monitor.run()
    // The test machine's disk is below 90 %; the measured ratio is what the gauge reports either way.
    const ratio = await gauge(registry, 'gov_disk_used_ratio', { path: later.dir })
    assert.ok(ratio > 0 && ratio < 1)
    const disk = findings.find((f) => f.check === 'disk')!
    assert.equal(disk.status, ratio > 0.9 ? 'alert' : 'ok')
    assert.equal(await gauge(registry, 'gov_monitor_alert', { check: 'internal_ca' }), 0)
    assert.equal(lines.filter((l) => l.alert === true && l.check !== 'disk').length, 0)
  })

  it('alerts when the disk threshold is crossed or a path cannot be measured', async () => {
    const { logger } = captureLogs()
    const registry = new Registry()
    const monitor = new HealthMonitor({
      settings: {
        ...readMonitorSettings({}),
        diskThreshold: 0,
        diskPaths: [later.dir, `${later.dir}/does-not-exist`],
      },
      logger,
      registry,
      ready: async () => ({ ok: true, failing: [] }),
    })
    const disks = (await monitor.run()).filter((f) => f.check === 'disk')
    assert.deepEqual(
      disks.map((d) => d.status),
      ['alert', 'alert'],
    )
    assert.equal(await gauge(registry, 'gov_monitor_alert', { check: 'disk' }), 1)
  })

  it('reads its settings: 5 minutes by default, GOV_DATA_DIR watched, bad intervals refused', () => {
    const s = readMonitorSettings({ GOV_DATA_DIR: '/data', GOV_TLS_CLIENT_CA_FILE: '/ca.crt' })
    assert.equal(s.intervalMs, 300_000)
    assert.deepEqual(s.diskPaths, ['/', '/data'])
    assert.equal(s.caFile, '/ca.crt')
    assert.equal(readMonitorSettings({ GOV_MONITOR_INTERVAL_MS: '0' }).intervalMs, 0)
    assert.throws(
      () => readMonitorSettings({ GOV_MONITOR_INTERVAL_MS: '10' }),
      (err: { code?: string }) => err.code === 'GOV_ERR_CONFIG_INVALID',
    )
  })
})

describe('HealthMonitor in the gateway', () => {
  it('runs at start and reports through /metrics', async () => {
    const gw = await startTestGateway()
    try {
      const deadline = Date.now() + 5_000
      let text = ''
      while (Date.now() < deadline && !text.includes('gov_monitor_alert{check="readiness"}')) {
        text = (await gw.admin('GET', '/metrics')).text
        if (!text.includes('gov_monitor_alert{check="readiness"}'))
          await new Promise((r) => setTimeout(r, 50))
      }
      assert.match(text, /^gov_monitor_alert\{check="readiness"\} 0$/m)
      assert.match(text, /^gov_disk_used_ratio\{path="\/"\} [\d.]+$/m)
    } finally {
      await gw.close()
    }
  })
})
