import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startGateway } from '@gov/host'
import { type MockProvider, startMockProvider } from '@gov/host/testing'
import { checkNode } from '../src/doctor/check-node.js'
import type { DoctorReport } from '../src/doctor/render-report.js'
import { runCli } from './helpers/run-cli.js'

function find(report: DoctorReport, area: string, subject?: string) {
  return report.checks.filter((c) => c.area === area && (subject === undefined || c.subject === subject))
}

describe('gov doctor', () => {
  let mock: MockProvider
  let goodEnv: NodeJS.ProcessEnv
  before(async () => {
    mock = await startMockProvider({ recordRequests: false })
    goodEnv = {
      GOV_ADMIN_API_KEY: 'test-admin',
      OPENAI_API_KEY: 'sk-test-never-printed',
      OPENAI_BASE_URL: mock.openaiBaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
    }
  })
  after(async () => {
    await mock?.close()
  })

  it('passes on a good environment and never prints key values', async () => {
    const run = await runCli(['doctor', '--json'], goodEnv)
    assert.equal(run.code, 0, run.stdout)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(report.ok, true)
    assert.equal(report.counts.fail, 0)
    assert.equal(find(report, 'config')[0]?.status, 'ok')
    assert.equal(find(report, 'storage', 'memory')[0]?.status, 'warn')
    assert.equal(find(report, 'redis')[0]?.status, 'ok')
    assert.deepEqual(
      find(report, 'provider').map((c) => c.status),
      ['ok', 'ok'],
    )
    assert.equal(find(report, 'keys', 'OPENAI_API_KEY')[0]?.status, 'ok')
    assert.equal(find(report, 'keys', 'ANTHROPIC_API_KEY')[0]?.status, 'warn')
    assert.equal(find(report, 'presets').length, 3)
    assert.ok(find(report, 'plugins').length >= 11)
    assert.ok(!run.stdout.includes('sk-test-never-printed'))
    assert.ok(!run.stdout.includes('test-admin'))
  })

  it('prints a table of ok / warn / fail lines', async () => {
    const run = await runCli(['doctor'], goodEnv)
    assert.equal(run.code, 0)
    assert.match(run.stdout, /^ok {2}\s*node/m)
    assert.match(run.stdout, /^warn\s+storage\s+memory/m)
    assert.match(run.stdout, /\d+ ok, \d+ warn, 0 fail/)
  })

  it('fails with exit 1 when the database cannot be reached', async () => {
    const run = await runCli(['doctor', '--json', '--timeout', '1000'], {
      ...goodEnv,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x',
    })
    assert.equal(run.code, 1)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(report.ok, false)
    const storage = find(report, 'storage', 'postgres')[0]
    assert.equal(storage?.status, 'fail')
    assert.equal(storage?.code, 'ECONNREFUSED')
    assert.ok(!run.stdout.includes('nobody@'), 'credentials part of the URL is not printed')
  })

  it('fails when Redis cannot be reached', async () => {
    const run = await runCli(['doctor', '--json', '--timeout', '1000'], {
      ...goodEnv,
      REDIS_URL: 'redis://127.0.0.1:1',
    })
    assert.equal(run.code, 1)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(find(report, 'redis')[0]?.status, 'fail')
  })

  it('reports unreachable providers as warnings, not failures', async () => {
    const run = await runCli(['doctor', '--json', '--timeout', '500'], {
      ...goodEnv,
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    })
    assert.equal(run.code, 0)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(find(report, 'provider', 'openai')[0]?.status, 'warn')
  })

  it('shows the coded error of a GOV_PLUGINS entry that does not load', async () => {
    const run = await runCli(['doctor', '--json'], {
      ...goodEnv,
      GOV_PLUGINS: 'gov-step-that-does-not-exist',
    })
    assert.equal(run.code, 1)
    const report = JSON.parse(run.stdout) as DoctorReport
    const entry = find(report, 'plugins', 'gov-step-that-does-not-exist')[0]
    assert.equal(entry?.status, 'fail')
    assert.equal(entry?.code, 'GOV_ERR_PLUGIN_NOT_FOUND')
  })

  it('fails an unknown default preset', async () => {
    const run = await runCli(['doctor', '--json'], { ...goodEnv, GOV_DEFAULT_PRESET: 'lenient' })
    assert.equal(run.code, 1)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(find(report, 'presets', 'GOV_DEFAULT_PRESET')[0]?.code, 'GOV_ERR_PIPELINE_UNKNOWN_PRESET')
  })

  it('in production requires the admin key and flags what is production-unsafe', async () => {
    const { GOV_ADMIN_API_KEY: _, ...noAdmin } = goodEnv
    const run = await runCli(['doctor', '--json'], { ...noAdmin, GOV_ENV: 'production' })
    assert.equal(run.code, 1)
    const report = JSON.parse(run.stdout) as DoctorReport
    assert.equal(find(report, 'config')[0]?.status, 'fail')
    assert.equal(find(report, 'config')[0]?.code, 'GOV_ERR_CONFIG_INVALID')
    assert.equal(find(report, 'keys', 'GOV_ADMIN_API_KEY')[0]?.status, 'fail')
    const unsafe = report.checks
      .filter((c) => c.code === 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
      .map((c) => c.area)
    assert.ok(unsafe.includes('storage'))
    assert.ok(unsafe.includes('production'))
  })

  it('judges the Node.js version', () => {
    assert.equal(checkNode('20.11.0').status, 'ok')
    assert.equal(checkNode('22.1.0').status, 'ok')
    assert.equal(checkNode('20.10.9').status, 'fail')
    assert.equal(checkNode('18.19.0').code, 'GOV_ERR_DOCTOR_NODE_TOO_OLD')
  })

  describe('with --url', () => {
    let gateway: Awaited<ReturnType<typeof startGateway>>
    before(async () => {
      gateway = await startGateway({
        env: { GOV_PORT: '0', GOV_ADMIN_API_KEY: 'test-admin', LOG_LEVEL: 'silent' },
      })
    })
    after(async () => {
      await gateway?.close()
    })

    it('probes a running gateway', async () => {
      const run = await runCli(['doctor', '--json', '--url', gateway.url], goodEnv)
      const report = JSON.parse(run.stdout) as DoctorReport
      const probes = find(report, 'gateway')
      assert.deepEqual(
        probes.map((c) => c.subject),
        ['/health', '/health/ready', '/health/startup'],
      )
      assert.equal(probes[0]?.status, 'ok')
      assert.equal(probes[1]?.status, 'ok')
      assert.notEqual(probes[2]?.status, 'fail')
      assert.equal(run.code, 0)
    })

    it('fails when nothing answers at the URL', async () => {
      const run = await runCli(
        ['doctor', '--json', '--timeout', '500', '--url', 'http://127.0.0.1:1'],
        goodEnv,
      )
      assert.equal(run.code, 1)
      const report = JSON.parse(run.stdout) as DoctorReport
      assert.ok(find(report, 'gateway').every((c) => c.status === 'fail'))
    })
  })
})
