import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { importSigningKey } from '@gov/host'
import { parse } from 'yaml'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** `docker compose` (plugin) or `docker-compose`, whichever is installed; undefined when neither is. */
function composeCommand(): string[] | undefined {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    try {
      execFileSync(cmd[0]!, [...cmd.slice(1), 'version'], { stdio: 'ignore' })
      return cmd
    } catch {}
  }
  return undefined
}
const COMPOSE = composeCommand()

describe('docker-compose.yml', {
  skip: !COMPOSE && 'neither docker compose nor docker-compose is installed',
}, () => {
  // biome-ignore lint/suspicious/noExplicitAny: the resolved compose model is inspected freely
  let config: any
  before(async () => {
    const { stdout } = await run(
      COMPOSE![0]!,
      [...COMPOSE!.slice(1), '-f', join(ROOT, 'docker-compose.yml'), 'config'],
      {
        env: {
          PATH: process.env.PATH,
          POSTGRES_PASSWORD: 'p',
          POSTGRES_GOV_PASSWORD: 'g',
          POSTGRES_VAULT_PASSWORD: 'v',
          REDIS_PASSWORD: 'r',
          GOV_ADMIN_API_KEY: 'a',
        },
      },
    )
    config = parse(stdout)
  })

  it('runs three hardened gov replicas over TLS behind a load balancer', () => {
    for (const name of ['gov-1', 'gov-2', 'gov-3']) {
      const s = config.services[name]
      assert.equal(s.user, '999:999')
      assert.equal(s.read_only, true)
      assert.deepEqual(s.cap_drop, ['ALL'])
      assert.deepEqual(s.ulimits.core, { soft: 0, hard: 0 })
      assert.ok(s.security_opt.includes('no-new-privileges:true'))
      assert.equal(s.environment.GOV_ENV, 'production')
      assert.equal(s.environment.GOV_TLS_CERT_FILE, '/run/gov/tls/gov.crt')
      assert.match(s.environment.VAULT_ADDR, /^https:/)
      assert.ok(s.healthcheck.test.join(' ').includes('/health/ready'))
    }
    assert.ok(config.services.lb)
    const haproxy = readFileSync(join(ROOT, 'deploy/haproxy/haproxy.cfg'), 'utf8')
    for (const name of ['gov-1', 'gov-2', 'gov-3'])
      assert.match(haproxy, new RegExp(`server ${name} ${name}:8443`))
  })

  it('has PostgreSQL with SSL only, Redis with TLS and a password, Vault not in dev mode, daily backups', () => {
    const pg = config.services.postgres.command.join(' ')
    assert.match(pg, /ssl=on/)
    assert.match(
      readFileSync(join(ROOT, 'deploy/postgres/pg_hba.conf'), 'utf8'),
      /^hostssl all {3}all {3}0\.0\.0\.0\/0/m,
    )
    assert.doesNotMatch(readFileSync(join(ROOT, 'deploy/postgres/pg_hba.conf'), 'utf8'), /^host\s/m)
    const redis = config.services.redis.command.join(' ')
    assert.match(redis, /--port 0 --tls-port 6379/)
    assert.match(redis, /--requirepass/)
    const vault = config.services.vault
    assert.deepEqual(vault.command, ['server'])
    assert.ok(!JSON.stringify(vault).includes('-dev'))
    assert.ok(config.services['vault-init'])
    assert.equal(config.services.backup.environment.GOV_BACKUP_KEEP_DAYS, '30')
    assert.ok(config.services.backup.environment.VAULT_BACKUP_DATABASE_URL.includes('sslmode=verify-full'))
  })
})

describe('deploy/ca/make-ca.sh', () => {
  let out: string
  before(() => {
    out = mkdtempSync(join(tmpdir(), 'gov-ca-'))
  })
  after(() => rmSync(out, { recursive: true, force: true }))

  it('makes a CA, the certificates compose mounts and a shared signing key', async () => {
    await run('sh', [join(ROOT, 'deploy/ca/make-ca.sh'), 'compose'], {
      env: { PATH: process.env.PATH, OUT: out },
    })
    for (const name of ['gov', 'postgres', 'redis', 'vault']) {
      const { stdout } = await run('openssl', [
        'verify',
        '-CAfile',
        join(out, 'ca.crt'),
        join(out, `${name}.crt`),
      ])
      assert.match(stdout, /: OK$/m)
      assert.equal(statSync(join(out, `${name}.key`)).mode & 0o777, 0o600)
    }
    const { stdout: san } = await run('openssl', [
      'x509',
      '-in',
      join(out, 'gov.crt'),
      '-noout',
      '-ext',
      'subjectAltName',
    ])
    for (const host of ['gov-1', 'gov-2', 'gov-3']) assert.match(san, new RegExp(`DNS:${host}\\b`))
    const key = await importSigningKey(readFileSync(join(out, 'token-signing.key'), 'utf8'))
    assert.equal(key.alg, 'EdDSA')
  })

  it('refuses to overwrite an existing CA', async () => {
    await assert.rejects(
      run('sh', [join(ROOT, 'deploy/ca/make-ca.sh'), 'init'], { env: { PATH: process.env.PATH, OUT: out } }),
      (err: { code?: number }) => err.code === 2,
    )
  })
})

describe('deploy/docker/entrypoint.sh', () => {
  it('disables core dumps and reads VAULT_TOKEN_FILE before starting gov', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gov-entry-'))
    try {
      // A stand-in node prints what the real one would start with.
      writeFileSync(
        join(dir, 'node'),
        '#!/bin/sh\necho "core=$(ulimit -c) hard=$(ulimit -Hc) token=$VAULT_TOKEN file=$(printenv VAULT_TOKEN_FILE || echo unset) args=$*"\n',
      )
      chmodSync(join(dir, 'node'), 0o755)
      writeFileSync(join(dir, 'token'), 's.periodic-token\n')
      const { stdout } = await run('sh', [join(ROOT, 'deploy/docker/entrypoint.sh'), 'serve'], {
        env: { PATH: `${dir}:/usr/bin:/bin`, VAULT_TOKEN_FILE: join(dir, 'token') },
      })
      assert.equal(
        stdout.trim(),
        'core=0 hard=0 token=s.periodic-token file=unset args=--import reflect-metadata /app/cli/bin/gov.js serve',
      )
      await assert.rejects(
        run('sh', [join(ROOT, 'deploy/docker/entrypoint.sh')], {
          env: { PATH: `${dir}:/usr/bin:/bin`, VAULT_TOKEN_FILE: join(dir, 'missing') },
        }),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
