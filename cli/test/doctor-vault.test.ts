import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FakeVault, type MockProvider, startMockProvider } from '@gov/host/testing'
import type { CheckResult } from '../src/doctor/check-result.js'
import type { DoctorReport } from '../src/doctor/render-report.js'
import { runCli } from './helpers/run-cli.js'

function line(report: DoctorReport, area: string, subject: string): CheckResult | undefined {
  return report.checks.find((c) => c.area === area && c.subject === subject)
}

async function doctor(env: NodeJS.ProcessEnv, ...args: string[]) {
  const run = await runCli(['doctor', '--json', '--timeout', '5000', ...args], env)
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport, stdout: run.stdout }
}

describe('gov doctor with Vault', () => {
  let vault: FakeVault
  let mock: MockProvider
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
  let env: NodeJS.ProcessEnv

  before(async () => {
    mock = await startMockProvider({ recordRequests: false })
  })
  after(async () => {
    await mock.close()
  })
  beforeEach(async () => {
    await vault?.close()
    vault = await FakeVault.start()
    vault.putSecret('GOV_ADMIN_API_KEY', 'admin-from-vault-never-printed')
    vault.putSecret('OPENAI_API_KEY', 'sk-from-vault-never-printed')
    vault.putSecret('ANTHROPIC_API_KEY', 'sk-ant-from-vault')
    vault.putSecret('GOV_TOKEN_SIGNING_KEY', signingKey)
    env = {
      GOV_ENV: 'production',
      VAULT_ADDR: vault.url,
      VAULT_ROLE: vault.role,
      VAULT_JWT_PATH: vault.jwtPath,
      VAULT_TOKEN: vault.staticToken,
      OPENAI_BASE_URL: mock.openaiBaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
    }
  })
  after(async () => {
    await vault?.close()
  })

  it('reads every secret from Vault, says which login worked, and prints no value', async () => {
    const { report, stdout } = await doctor(env)
    assert.equal(line(report, 'vault', 'workload JWT')?.status, 'ok')
    assert.equal(line(report, 'vault', 'login')?.status, 'ok')
    assert.match(line(report, 'vault', 'login')!.detail, /workload JWT/)
    assert.equal(line(report, 'config', 'environment')?.status, 'ok')
    assert.equal(line(report, 'keys', 'GOV_ADMIN_API_KEY')?.status, 'ok')
    assert.equal(line(report, 'keys', 'OPENAI_API_KEY')?.status, 'ok')
    assert.match(line(report, 'keys', 'OPENAI_API_KEY')!.detail, /vault/)
    assert.equal(line(report, 'tokens', 'GOV_TOKEN_SIGNING_KEY')?.status, 'ok')
    assert.equal(line(report, 'production', 'secrets')?.status, 'ok')
    // No false "secrets are read from the process environment".
    assert.ok(!report.checks.some((c) => /process environment/.test(c.detail)))
    // The root-like static token never expires: production-unsafe, although it is valid.
    assert.equal(line(report, 'vault', 'VAULT_TOKEN')?.code, 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
    assert.equal(line(report, 'vault', 'VAULT_ADDR')?.code, 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE', 'plain http')
    for (const secret of ['admin-from-vault-never-printed', 'sk-from-vault-never-printed', 'PRIVATE KEY']) {
      assert.ok(!stdout.includes(secret))
    }
  })

  it('reports an expired workload JWT and the fallback to the token', async () => {
    const { writeFileSync } = await import('node:fs')
    const header = Buffer.from('{"alg":"RS256"}').toString('base64url')
    const claims = Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) - 60 })).toString(
      'base64url',
    )
    writeFileSync(vault.jwtPath, `${header}.${claims}.sig`)
    const { report, code } = await doctor(env)
    assert.equal(line(report, 'vault', 'workload JWT')?.status, 'fail')
    assert.equal(line(report, 'vault', 'workload JWT')?.code, 'GOV_ERR_VAULT_AUTH_FAILED')
    assert.match(line(report, 'vault', 'workload JWT')!.detail, /expired/)
    assert.equal(line(report, 'vault', 'login')?.status, 'warn')
    assert.match(line(report, 'vault', 'login')!.detail, /falls back to VAULT_TOKEN/)
    assert.equal(
      line(report, 'keys', 'GOV_ADMIN_API_KEY')?.status,
      'ok',
      'secrets still read through the token',
    )
    assert.equal(code, 1)
  })

  it('reports a missing JWT file and a revoked token: no login works, secrets not checked', async () => {
    vault.revokeToken('static')
    const { report, code } = await doctor({ ...env, VAULT_JWT_PATH: `${vault.jwtPath}.missing` })
    assert.equal(code, 1)
    assert.equal(line(report, 'vault', 'workload JWT')?.code, 'ENOENT')
    assert.equal(line(report, 'vault', 'VAULT_TOKEN')?.status, 'fail')
    assert.equal(line(report, 'vault', 'login')?.status, 'fail')
    assert.equal(line(report, 'secrets', 'all')?.status, 'fail')
    assert.equal(line(report, 'config', 'environment'), undefined)
  })

  it('fails when Vault does not answer', async () => {
    await vault.down()
    const { report, code } = await doctor(env)
    assert.equal(code, 1)
    assert.equal(line(report, 'vault', 'VAULT_ADDR')?.code, 'GOV_ERR_VAULT_UNAVAILABLE')
  })

  it('fails a required secret missing from Vault', async () => {
    vault.remove('gov/GOV_ADMIN_API_KEY')
    const { report, code } = await doctor(env)
    assert.equal(code, 1)
    assert.equal(line(report, 'keys', 'GOV_ADMIN_API_KEY')?.status, 'fail')
  })

  it('fails unusable Vault settings with their code', async () => {
    const { report } = await doctor({ ...env, VAULT_ROLE: '' })
    assert.equal(line(report, 'vault', 'settings')?.code, 'GOV_ERR_VAULT_CONFIG_INVALID')
  })
})
