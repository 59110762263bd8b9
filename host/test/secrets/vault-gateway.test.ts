import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { TOKENS } from '../../src/container.js'
import { isSecretName, type SecretSource } from '../../src/secrets/secret-source.js'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { startMockProvider } from '../../src/testing/mock-provider.js'
import {
  onlySteps,
  startTestGateway,
  TEST_ADMIN_KEY,
  type TestGateway,
} from '../../src/testing/test-gateway.js'
import { vaultEnv } from './vault-fixture.js'

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }

/** The provider key the mock provider received on its latest request. */
function lastProviderKey(t: TestGateway): string | undefined {
  return t.mock.requests.at(-1)?.headers.authorization as string | undefined
}

describe('gateway with secrets from Vault', () => {
  let fake: FakeVault
  let t: TestGateway
  let agentKey: string

  before(async () => {
    fake = await FakeVault.start()
    fake.putSecret('GOV_ADMIN_API_KEY', TEST_ADMIN_KEY)
    fake.putSecret('OPENAI_API_KEY', 'sk-vault-1')
    // The environment also holds OPENAI_API_KEY (startTestGateway's default): Vault must win.
    t = await startTestGateway({ env: vaultEnv(fake) })
    await t.createPipeline('vault-p', 'standard', onlySteps('standard', { fx_pass: {} }))
    agentKey = await t.createAgent('vault-agent', 'vault-p')
  })
  after(async () => {
    await t.close()
    await fake.close()
  })

  it('reads the provider key from Vault, not from the environment', async () => {
    const res = await t.call('/v1/chat/completions', chat, { key: agentKey })
    assert.equal(res.status, 200)
    assert.equal(lastProviderKey(t), 'Bearer sk-vault-1')
  })

  it('never asks Vault for plain configuration names', () => {
    const prefix = `/v1/${fake.mount}/data/gov/`
    const names = fake.requests
      .filter((r) => r.path.startsWith(prefix))
      .map((r) => r.path.slice(prefix.length))
    assert.ok(names.includes('GOV_ADMIN_API_KEY') && names.includes('OPENAI_API_KEY'))
    assert.deepEqual(
      names.filter((n) => !isSecretName(n)),
      [],
    )
    for (const plain of ['GOV_PORT', 'GOV_HOST', 'LOG_LEVEL', 'OPENAI_BASE_URL', 'VAULT_ADDR'])
      assert.ok(!names.includes(plain), plain)
  })

  it('applies a provider key rotated in Vault after invalidate, not before', async () => {
    fake.putSecret('OPENAI_API_KEY', 'sk-vault-2')
    await t.call('/v1/chat/completions', chat, { key: agentKey })
    assert.equal(lastProviderKey(t), 'Bearer sk-vault-1', 'cached within its lifetime')

    const inv = await t.admin('POST', '/admin/secrets/invalidate?name=OPENAI_API_KEY')
    assert.equal(inv.status, 200)
    assert.deepEqual(inv.body, { invalidated: 'OPENAI_API_KEY' })

    const res = await t.call('/v1/chat/completions', chat, { key: agentKey })
    assert.equal(res.status, 200)
    assert.equal(lastProviderKey(t), 'Bearer sk-vault-2')
  })

  it('guards the invalidate endpoint with the admin key and checks the name', async () => {
    const path = '/admin/secrets/invalidate?name=OPENAI_API_KEY'
    assert.equal((await t.admin('POST', path, undefined, { key: null })).status, 401)
    const agent = await t.admin('POST', path, undefined, { key: agentKey })
    assert.equal(agent.status, 403)
    assert.equal(agent.body.error.code, 'forbidden')

    const missing = await t.admin('POST', '/admin/secrets/invalidate')
    assert.equal(missing.status, 400)
    assert.equal(missing.body.error.code, 'invalid_request')
    const empty = await t.admin('POST', '/admin/secrets/invalidate?name=')
    assert.equal(empty.body.error.code, 'invalid_request')
    for (const name of ['GOV_PORT', 'VAULT_ADDR', '..%2Fsys%2FX_TOKEN']) {
      const res = await t.admin('POST', `/admin/secrets/invalidate?name=${name}`)
      assert.equal(res.status, 400, name)
      assert.equal(res.body.error.code, 'not_a_secret', name)
    }
  })

  it('reads the admin key through the source: a key rotated in Vault works after invalidate', async () => {
    fake.putSecret('GOV_ADMIN_API_KEY', 'rotated-admin-key')
    assert.equal((await t.admin('GET', '/agents')).status, 200, 'old key still cached')
    assert.equal((await t.admin('POST', '/admin/secrets/invalidate?name=GOV_ADMIN_API_KEY')).status, 200)
    assert.equal((await t.admin('GET', '/agents')).status, 401, 'the old key no longer works')
    assert.equal((await t.admin('GET', '/agents', undefined, { key: 'rotated-admin-key' })).status, 200)
    fake.putSecret('GOV_ADMIN_API_KEY', TEST_ADMIN_KEY)
    await t.admin('POST', '/admin/secrets/invalidate?name=GOV_ADMIN_API_KEY', undefined, {
      key: 'rotated-admin-key',
    })
    assert.equal((await t.admin('GET', '/agents')).status, 200)
  })

  it('keeps serving calls with the cached provider key while Vault is down', async () => {
    await t.admin('POST', '/admin/secrets/invalidate?name=OPENAI_API_KEY')
    await fake.down()
    try {
      const res = await t.call('/v1/chat/completions', chat, { key: agentKey })
      assert.equal(res.status, 200)
      assert.equal(lastProviderKey(t), 'Bearer sk-vault-2')
      const health = await fetch(`${t.url}/health`)
      const body = (await health.json()) as { secrets: string; warnings?: string[] }
      assert.equal(body.secrets, 'vault')
      assert.ok(
        body.warnings?.some((w) => w.startsWith('vault_degraded: OPENAI_API_KEY')),
        String(body.warnings),
      )
    } finally {
      await fake.up()
    }
  })
})

describe('gateway start-up and /health with Vault in production', () => {
  it('fails to start with a coded error when Vault is unreachable and nothing is cached', async () => {
    const fake = await FakeVault.start()
    const mock = await startMockProvider()
    await fake.down()
    try {
      await assert.rejects(startTestGateway({ env: vaultEnv(fake), mock }), {
        code: VaultErrorCodes.UNAVAILABLE,
      })
    } finally {
      await mock.close()
      await fake.close()
    }
  })

  it('reports a secret that could not be loaded as production-unsafe', async () => {
    const fake = await FakeVault.start()
    fake.putSecret('GOV_ADMIN_API_KEY', TEST_ADMIN_KEY)
    const t = await startTestGateway({ env: vaultEnv(fake, { GOV_ENV: 'production' }) })
    try {
      const before = (await (await fetch(`${t.url}/health`)).json()) as { warnings?: string[] }
      assert.ok(!before.warnings?.some((w) => w.includes('Vault')), String(before.warnings))
      await fake.down()
      const secrets = t.gateway.container.resolve<SecretSource>(TOKENS.Secrets)
      await assert.rejects(secrets.get('LATE_API_KEY'), { code: VaultErrorCodes.UNAVAILABLE })
      const body = (await (await fetch(`${t.url}/health`)).json()) as { warnings: string[] }
      assert.ok(
        body.warnings.includes(
          `production_unsafe: LATE_API_KEY could not be loaded from Vault (${VaultErrorCodes.UNAVAILABLE})`,
        ),
        String(body.warnings),
      )
    } finally {
      await t.close()
      await fake.close()
    }
  })

  it('reports an unconfigured Vault as production-unsafe', async () => {
    const t = await startTestGateway({ env: { GOV_ENV: 'production' } })
    try {
      const body = (await (await fetch(`${t.url}/health`)).json()) as { secrets: string; warnings: string[] }
      assert.equal(body.secrets, 'env')
      assert.ok(body.warnings.some((w) => w.startsWith('production_unsafe: Vault is not configured')))
    } finally {
      await t.close()
    }
  })
})
