import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import { EnvSecretSource } from '../src/secrets/secret-source.js'

async function configOf(env: Record<string, string>) {
  const full = { GOV_ADMIN_API_KEY: 'test-admin-key', ...env }
  return loadConfig(full, new EnvSecretSource(full))
}

describe('loadConfig: provider base URLs', () => {
  it('takes http(s) URLs and drops a trailing slash', async () => {
    const config = await configOf({
      OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1/',
      ANTHROPIC_BASE_URL: 'https://anthropic.example',
    })
    assert.equal(config.openaiBaseUrl, 'http://127.0.0.1:9000/v1')
    assert.equal(config.anthropicBaseUrl, 'https://anthropic.example')
  })

  for (const [name, url] of [
    ['OPENAI_BASE_URL', '/v1'],
    ['OPENAI_BASE_URL', 'node:internal/modules/v1'],
    ['ANTHROPIC_BASE_URL', 'file:///etc/passwd'],
    ['ANTHROPIC_BASE_URL', 'api.anthropic.com'],
  ]) {
    it(`refuses to start with ${name}=${url}, naming the setting`, async () => {
      await assert.rejects(
        configOf({ [name as string]: url as string }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name as string),
      )
    })
  }
})
