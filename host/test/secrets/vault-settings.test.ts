import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { createSecretSource } from '../../src/secrets/create-secret-source.js'
import { isSecretName } from '../../src/secrets/secret-source.js'
import { secretWarnings } from '../../src/secrets/secret-warnings.js'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { kvDataPath, readVaultSettings } from '../../src/secrets/vault-settings.js'
import { captureLogger } from './vault-fixture.js'

const BASE = { VAULT_ADDR: 'https://vault.internal:8200/', VAULT_TOKEN: 'hvs.x' }
const invalid = { code: VaultErrorCodes.CONFIG_INVALID }

describe('Vault settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gov-vault-settings-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('has the documented defaults and maps a name to <mount>/data/<path>/<NAME>', () => {
    const s = readVaultSettings(BASE)
    assert.equal(s.addr, 'https://vault.internal:8200')
    assert.equal(s.authPath, 'jwt')
    assert.equal(s.kvMount, 'secret')
    assert.equal(s.secretPath, 'gov')
    assert.equal(s.timeoutMs, 5_000)
    assert.equal(s.role, undefined)
    assert.equal(kvDataPath(s, 'OPENAI_API_KEY'), 'secret/data/gov/OPENAI_API_KEY')
  })

  it('takes mount, path and auth mount from the environment, without stray slashes', () => {
    const s = readVaultSettings({
      ...BASE,
      VAULT_KV_MOUNT: '/kv/',
      VAULT_SECRET_PATH: 'teams/gov/',
      VAULT_AUTH_PATH: 'k8s',
      VAULT_ROLE: 'gov',
      VAULT_JWT_PATH: '/var/run/secrets/token',
    })
    assert.equal(kvDataPath(s, 'REDIS_PASSWORD'), 'kv/data/teams/gov/REDIS_PASSWORD')
    assert.equal(s.authPath, 'k8s')
    assert.equal(s.jwtPath, '/var/run/secrets/token')
  })

  it('reads the internal CA from VAULT_CACERT', () => {
    const ca = join(dir, 'ca.pem')
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
    assert.match(readVaultSettings({ ...BASE, VAULT_CACERT: ca }).caCert ?? '', /BEGIN CERTIFICATE/)
  })

  it('refuses settings that cannot work, with GOV_ERR_VAULT_CONFIG_INVALID', () => {
    assert.throws(() => readVaultSettings({ VAULT_ADDR: 'https://v:8200' }), invalid, 'no way to log in')
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_ROLE: 'gov' }), invalid, 'role without JWT file')
    assert.throws(
      () => readVaultSettings({ ...BASE, VAULT_JWT_PATH: '/t' }),
      invalid,
      'JWT file without role',
    )
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_ADDR: 'vault:8200' }), invalid, 'not a URL')
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_TIMEOUT_MS: '0' }), invalid)
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_SECRET_PATH: 'gov/../sys' }), invalid)
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_KV_MOUNT: 'se cret' }), invalid)
    assert.throws(() => readVaultSettings({ ...BASE, VAULT_CACERT: join(dir, 'missing.pem') }), invalid)
  })
})

describe('createSecretSource', () => {
  const { logger } = captureLogger()

  it('reads the environment when VAULT_ADDR is unset', async () => {
    const source = createSecretSource({ OPENAI_API_KEY: 'sk-env' }, logger)
    assert.equal(source.kind, 'env')
    assert.equal(await source.get('OPENAI_API_KEY'), 'sk-env')
  })

  it('uses Vault when VAULT_ADDR is set', () => {
    const source = createSecretSource(BASE, logger)
    assert.equal(source.kind, 'vault')
    source.close?.()
  })

  it('fails at start on unusable Vault settings', () => {
    assert.throws(() => createSecretSource({ VAULT_ADDR: 'http://127.0.0.1:8200' }, logger), invalid)
  })

  it('treats the documented names as secrets and everything else as configuration', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GOV_TOKEN_SECRET',
      'REDIS_PASSWORD',
      'VAULT_TOKEN',
      'DATABASE_URL',
    ])
      assert.ok(isSecretName(name), name)
    for (const name of ['GOV_PORT', 'VAULT_ADDR', 'VAULT_ROLE', 'OPENAI_BASE_URL', 'GOV_TOKEN_TTL'])
      assert.ok(!isSecretName(name), name)
  })
})

describe('secret warnings for /health', () => {
  it('reports an unconfigured Vault as production-unsafe in production only', () => {
    assert.match(
      secretWarnings('production', 'env', []).join(),
      /^production_unsafe: Vault is not configured/,
    )
    assert.deepEqual(secretWarnings('development', 'env', []), [])
    assert.deepEqual(secretWarnings('production', 'vault', []), [])
  })

  it('names each secret that could not be loaded, and each served stale', () => {
    const problems = [
      { name: 'OPENAI_API_KEY', code: VaultErrorCodes.UNAVAILABLE, stale: false },
      { name: 'REDIS_PASSWORD', code: VaultErrorCodes.UNAVAILABLE, stale: true },
    ]
    assert.deepEqual(
      secretWarnings('production', 'vault', problems).map((w) => w.split(':')[0]),
      ['production_unsafe', 'vault_degraded'],
    )
    assert.deepEqual(
      secretWarnings('development', 'vault', problems).map((w) => w.split(':')[0]),
      ['secret_not_loaded', 'vault_degraded'],
    )
    assert.match(secretWarnings('production', 'vault', problems)[0], /OPENAI_API_KEY/)
  })
})
