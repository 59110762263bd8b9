import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { makeTestCa, startTestGateway, type TestCa } from '@gov/host/testing'
import pg from 'pg'
import { checkRedis } from '../src/doctor/check-redis.js'
import type { CheckResult } from '../src/doctor/check-result.js'
import type { DoctorReport } from '../src/doctor/render-report.js'
import { runCli } from './helpers/run-cli.js'

function lines(report: DoctorReport, area: string, subject?: string): CheckResult[] {
  return report.checks.filter((c) => c.area === area && (subject === undefined || c.subject === subject))
}

async function doctor(env: NodeJS.ProcessEnv, ...args: string[]) {
  const run = await runCli(['doctor', '--json', '--timeout', '5000', ...args], {
    GOV_ADMIN_API_KEY: 'test-admin',
    OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  })
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport }
}

const pem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

describe('gov doctor: policy, certificates, disk, signing key', () => {
  let ca: TestCa
  let expiring: TestCa
  before(() => {
    ca = makeTestCa({ days: 400 })
    expiring = makeTestCa({ days: 12 })
  })
  after(() => {
    ca.close()
    expiring.close()
  })

  it('validates the policy file with the gateway compiler and locates errors', async () => {
    const ok = await doctor({})
    assert.equal(lines(ok.report, 'policy', 'default policy')[0]?.status, 'ok')
    const bad = `${ca.dir}/bad.cedar`
    writeFileSync(bad, 'permit (principal, action == Gov::Action::"no_such_action", resource);\n')
    const run = await doctor({ GOV_POLICY_FILE: bad })
    assert.equal(run.code, 1)
    const policy = lines(run.report, 'policy', 'GOV_POLICY_FILE')[0]
    assert.equal(policy?.status, 'fail')
    assert.equal(policy?.code, 'GOV_ERR_POLICY_INVALID')
    const missing = await doctor({ GOV_POLICY_FILE: `${ca.dir}/none.cedar` })
    assert.equal(lines(missing.report, 'policy')[0]?.status, 'fail')
  })

  it('checks the HTTPS pair and warns on an internal CA with under 30 days left', async () => {
    const leaf = ca.issue('doctor-leaf')
    const good = await doctor({
      GOV_TLS_CERT_FILE: leaf.cert,
      GOV_TLS_KEY_FILE: leaf.key,
      GOV_INTERNAL_CA_FILE: ca.caCert,
    })
    assert.equal(lines(good.report, 'tls', 'GOV_TLS_CERT_FILE')[0]?.status, 'ok')
    assert.equal(lines(good.report, 'tls', 'internal CA')[0]?.status, 'ok')

    const other = ca.issue('doctor-other')
    const mismatched = await doctor({
      GOV_TLS_CERT_FILE: leaf.cert,
      GOV_TLS_KEY_FILE: other.key,
      GOV_INTERNAL_CA_FILE: expiring.caCert,
    })
    assert.equal(mismatched.code, 1)
    assert.equal(lines(mismatched.report, 'tls', 'GOV_TLS_CERT_FILE')[0]?.code, 'GOV_ERR_TLS_FILE_INVALID')
    const caLine = lines(mismatched.report, 'tls', 'internal CA')[0]
    assert.equal(caLine?.status, 'warn')
    assert.equal(caLine?.code, 'GOV_ERR_TLS_CA_EXPIRING')

    const plain = await doctor({ GOV_ENV: 'production' })
    assert.equal(lines(plain.report, 'tls', 'GOV_TLS_CERT_FILE')[0]?.code, 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
  })

  it('measures the disk of / and GOV_DATA_DIR', async () => {
    const { report } = await doctor({ GOV_DATA_DIR: ca.dir })
    const disk = lines(report, 'disk')
    assert.deepEqual(
      disk.map((d) => d.subject),
      ['/', ca.dir],
    )
    for (const d of disk) assert.match(d.detail, /^\d+ % used/)
  })

  it('says whether replicas share the signing key, from their JWKS', async () => {
    const shared = pem()
    const a = await startTestGateway({ env: { GOV_TOKEN_SIGNING_KEY: shared } })
    const b = await startTestGateway({ env: { GOV_TOKEN_SIGNING_KEY: shared } })
    const c = await startTestGateway({ env: { GOV_TOKEN_SIGNING_KEY: pem() } })
    try {
      const same = await doctor({ GOV_TOKEN_SIGNING_KEY: shared }, '--url', a.url, '--url', b.url)
      const tokenLines = lines(same.report, 'tokens')
      assert.deepEqual(
        tokenLines.map((l) => l.status),
        ['ok', 'ok', 'ok'],
      )
      const differs = await doctor({ GOV_TOKEN_SIGNING_KEY: shared }, '--url', a.url, '--url', c.url)
      assert.equal(differs.code, 1)
      assert.equal(lines(differs.report, 'tokens', c.url)[0]?.code, 'GOV_ERR_DOCTOR_KEY_MISMATCH')
      assert.equal(lines(differs.report, 'gateway', '/health').length, 2, 'each URL is probed')

      const unset = await doctor({ GOV_ENV: 'production' })
      assert.equal(lines(unset.report, 'tokens')[0]?.code, 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
      const broken = await doctor({ GOV_TOKEN_SIGNING_KEY: 'not a key' })
      assert.equal(lines(broken.report, 'tokens')[0]?.code, 'GOV_ERR_TOKEN_KEY_INVALID')
    } finally {
      await Promise.all([a.close(), b.close(), c.close()])
    }
  })
})

const DATABASE_URL = process.env.GOV_TEST_DATABASE_URL
describe('gov doctor: migrations on a real PostgreSQL', {
  skip: !DATABASE_URL && 'GOV_TEST_DATABASE_URL is unset',
}, () => {
  const name = `gov_doctor_${process.pid}`
  let url: string
  let admin: pg.Client
  before(async () => {
    admin = new pg.Client({ connectionString: DATABASE_URL })
    await admin.connect()
    await admin.query(`drop database if exists ${name}`)
    await admin.query(`create database ${name}`)
    const u = new URL(DATABASE_URL!)
    u.pathname = `/${name}`
    url = u.toString()
  })
  after(async () => {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  })

  it('reports migrations pending, current, and ahead of this gov', async () => {
    const fresh = await doctor({ DATABASE_URL: url })
    assert.match(lines(fresh.report, 'storage', 'postgres')[0]!.detail, /no gov tables yet/)

    const gw = await startTestGateway({ env: { DATABASE_URL: url } })
    await gw.close()
    const current = await doctor({ DATABASE_URL: url })
    const line = lines(current.report, 'storage', 'postgres')[0]!
    assert.equal(line.status, 'ok')
    assert.match(line.detail, /migrations current \((\d+) of \1\)/)

    const db = new pg.Client({ connectionString: url })
    await db.connect()
    await db.query(
      `insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-the-future', $1)`,
      [Date.now() + 86_400_000 * 365],
    )
    await db.end()
    const ahead = await doctor({ DATABASE_URL: url })
    assert.equal(ahead.code, 1)
    assert.equal(lines(ahead.report, 'storage', 'postgres')[0]?.code, 'GOV_ERR_DOCTOR_MIGRATIONS_AHEAD')
  })
})

const REDIS_URL = process.env.GOV_TEST_REDIS_URL
describe('gov doctor: Redis authentication', { skip: !REDIS_URL && 'GOV_TEST_REDIS_URL is unset' }, () => {
  it('sees through a password in the URL when Redis requires none', async () => {
    const u = new URL(REDIS_URL!)
    u.password = 'not-checked-by-redis'
    const withPassword = u.toString()
    const dev = await checkRedis({ redisUrl: withPassword, production: false, timeoutMs: 5000 })
    assert.equal(dev.status, 'ok')
    assert.match(dev.detail, /accepts connections without a password/)
    const prod = await checkRedis({ redisUrl: withPassword, production: true, timeoutMs: 5000 })
    assert.equal(prod.code, 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
    assert.ok(!prod.detail.includes('not-checked-by-redis'))
  })
})
