import assert from 'node:assert/strict'
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { type AddressInfo, createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  FakeVault,
  type MockProvider,
  makeTestCa,
  startMockProvider,
  startTestGateway,
  type TestCa,
  type TestGateway,
} from '@gov/host/testing'
import type { DoctorReport } from '../src/doctor/render-report.js'

const run = promisify(execFile)
const GOV = fileURLToPath(new URL('../../bin/gov.js', import.meta.url))
const DATABASE_URL = process.env.GOV_TEST_DATABASE_URL

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

const skip =
  (!DATABASE_URL && 'GOV_TEST_DATABASE_URL is unset') ||
  (!hasRedisServer() && 'redis-server is not installed')

/**
 * `gov doctor` as a separate process on a production-like configuration: Vault
 * over TLS with workload-JWT login holding every secret, Redis with TLS and a
 * password, gov's own HTTPS pair and internal CA, a shared signing key checked
 * against a running HTTPS gateway. Every check it makes must pass or warn
 * truthfully: the one production-unsafe finding is the test PostgreSQL, which
 * has SSL off.
 */
describe('gov doctor on a production-like configuration', { skip }, () => {
  let ca: TestCa
  let vault: FakeVault
  let mock: MockProvider
  let redis: ChildProcess
  let gateway: TestGateway
  let env: NodeJS.ProcessEnv
  let redisPort: number
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()

  before(async () => {
    ca = makeTestCa({ days: 365 })
    const vaultCert = ca.issue('vault')
    const redisCert = ca.issue('redis')
    const govCert = ca.issue('gov')
    vault = await FakeVault.start({ tls: { cert: ca.read(vaultCert.cert), key: ca.read(vaultCert.key) } })
    mock = await startMockProvider({ recordRequests: false })
    redisPort = await freePort()
    // biome-ignore format: one flag per line reads better as pairs
    redis = spawn('redis-server', [
      '--port', '0', '--tls-port', String(redisPort), '--bind', '127.0.0.1',
      '--tls-cert-file', redisCert.cert, '--tls-key-file', redisCert.key, '--tls-ca-cert-file', ca.caCert,
      '--tls-auth-clients', 'no', '--requirepass', 'redis-pw', '--save', '', '--appendonly', 'no',
    ], { stdio: 'ignore' })
    const deadline = Date.now() + 10_000
    for (;;) {
      try {
        await run('redis-cli', [
          '--tls',
          '--cacert',
          ca.caCert,
          '-p',
          String(redisPort),
          '--no-auth-warning',
          '-a',
          'redis-pw',
          'ping',
        ])
        break
      } catch (err) {
        if (Date.now() > deadline) throw err
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    for (const [name, value] of Object.entries({
      GOV_ADMIN_API_KEY: 'prod-admin-key',
      OPENAI_API_KEY: 'sk-prod',
      ANTHROPIC_API_KEY: 'sk-ant-prod',
      GOV_TOKEN_SIGNING_KEY: signingKey,
      DATABASE_URL: DATABASE_URL!,
      REDIS_URL: `rediss://:redis-pw@localhost:${redisPort}`,
    }))
      vault.putSecret(name, value)
    gateway = await startTestGateway({
      env: {
        GOV_TLS_CERT_FILE: govCert.cert,
        GOV_TLS_KEY_FILE: govCert.key,
        GOV_TOKEN_SIGNING_KEY: signingKey,
      },
    })
    env = {
      PATH: process.env.PATH,
      GOV_ENV: 'production',
      VAULT_ADDR: vault.url,
      VAULT_CACERT: ca.caCert,
      VAULT_ROLE: vault.role,
      VAULT_JWT_PATH: vault.jwtPath,
      OPENAI_BASE_URL: mock.openaiBaseUrl,
      ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
      GOV_TLS_CERT_FILE: govCert.cert,
      GOV_TLS_KEY_FILE: govCert.key,
      GOV_INTERNAL_CA_FILE: ca.caCert,
      // As in docker-compose.yml: Redis and the gateways are trusted through the internal CA.
      NODE_EXTRA_CA_CERTS: ca.caCert,
    }
  })
  after(async () => {
    redis?.kill()
    await gateway?.close()
    await vault?.close()
    await mock?.close()
    ca?.close()
  })

  it('passes every check it makes, and warns only about what is true', async () => {
    const child = await run('node', [GOV, 'doctor', '--json', '--timeout', '10000', '--url', gateway.url], {
      env,
    }).catch((err: { code: number; stdout: string; stderr: string }) => err)
    const report = JSON.parse(child.stdout) as DoctorReport
    const failed = report.checks.filter((c) => c.status === 'fail')
    assert.deepEqual(failed, [], JSON.stringify(failed, null, 2))
    const status = (area: string, subject: string) =>
      report.checks.find((c) => c.area === area && c.subject === subject)?.status
    assert.equal(status('vault', 'VAULT_ADDR'), 'ok')
    assert.equal(status('vault', 'workload JWT'), 'ok')
    assert.equal(status('vault', 'login'), 'ok')
    assert.equal(status('redis', 'REDIS_URL'), 'ok')
    assert.match(report.checks.find((c) => c.area === 'redis')!.detail, /TLS on, password required/)
    assert.equal(status('tls', 'GOV_TLS_CERT_FILE'), 'ok')
    assert.equal(status('tls', 'internal CA'), 'ok')
    assert.equal(status('tokens', 'GOV_TOKEN_SIGNING_KEY'), 'ok')
    assert.equal(status('tokens', gateway.url), 'ok')
    assert.equal(status('production', 'secrets'), 'ok')
    assert.equal(status('gateway', '/health/ready'), 'ok')
    const unsafe = report.checks
      .filter((c) => c.code === 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE')
      .map((c) => c.area)
    assert.deepEqual(unsafe, ['storage'], 'the test PostgreSQL has SSL off; nothing else is unsafe')
    assert.equal('code' in child ? child.code : 0, 0)
    for (const secret of ['prod-admin-key', 'sk-prod', 'redis-pw', 'PRIVATE KEY']) {
      assert.ok(!child.stdout.includes(secret), `${secret} is not printed`)
    }
  })

  it('says what to change when Redis or PostgreSQL refuse', async () => {
    const checkRedis = fileURLToPath(new URL('../src/doctor/check-redis.js', import.meta.url))
    const checkStorage = fileURLToPath(new URL('../src/doctor/check-storage.js', import.meta.url))
    // Without NODE_EXTRA_CA_CERTS (this test process) the internal CA is not trusted.
    const { checkRedis: probe } = (await import(checkRedis)) as typeof import('../src/doctor/check-redis.js')
    const untrusted = await probe({
      redisUrl: `rediss://:redis-pw@localhost:${redisPort}`,
      production: true,
      timeoutMs: 5000,
    })
    assert.equal(untrusted.status, 'fail')
    assert.match(untrusted.detail, /not trusted: set NODE_EXTRA_CA_CERTS/)
    // With it (a child process, as in the compose file), a wrong password is named as such.
    const script = `import { checkRedis } from ${JSON.stringify(checkRedis)}
      const r = await checkRedis({ redisUrl: 'rediss://:wrong-pw@localhost:${redisPort}', production: true, timeoutMs: 5000 })
      console.log(JSON.stringify(r)); process.exit(0)`
    const { stdout } = await run('node', ['--input-type=module', '-e', script], { env: { ...env } })
    const wrong = JSON.parse(stdout) as { status: string; detail: string }
    assert.equal(wrong.status, 'fail')
    assert.match(wrong.detail, /the password in REDIS_URL is wrong/)
    assert.ok(!wrong.detail.includes('wrong-pw'))

    const { checkStorage: storage } = (await import(
      checkStorage
    )) as typeof import('../src/doctor/check-storage.js')
    const u = new URL(DATABASE_URL!)
    u.pathname = '/gov_doctor_no_such_db'
    const [missing] = await storage({
      databaseUrl: u.toString(),
      dataDir: undefined,
      production: true,
      timeoutMs: 5000,
    })
    assert.equal(missing?.code, '3D000')
    assert.match(missing!.detail, /does not exist: create it/)
  })
})
