import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { describe, it } from 'node:test'
import { chatBody, onlySteps, startTestGateway, TEST_ADMIN_KEY } from '../../src/testing/test-gateway.js'

describe('logs', () => {
  it('never carry agent keys, the admin key, provider keys or prompt text, even at debug level', async () => {
    const lines: string[] = []
    const destination = new PassThrough()
    destination.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')))
    const t = await startTestGateway({
      env: { LOG_LEVEL: 'debug', OPENAI_API_KEY: 'sk-provider-secret-value' },
      start: { logDestination: destination },
    })
    const prompt = 'a very private prompt about the quarterly numbers'
    let agentKey = ''
    try {
      await t.createPipeline('logged', 'standard', onlySteps('standard', { fx_block: {} }))
      agentKey = await t.createAgent('logged-agent', 'logged')
      assert.equal((await t.call('/v1/chat/completions', chatBody(prompt), { key: agentKey })).status, 200)
      assert.equal(
        (await t.call('/v1/chat/completions', chatBody('forbidden'), { key: agentKey })).status,
        403,
      )
      assert.equal(
        (await t.call('/v1/chat/completions', chatBody(prompt), { key: 'gov_wrong_key' })).status,
        401,
      )
    } finally {
      await t.close()
    }
    const log = lines.join('')
    assert.match(log, /"msg":"call"/, 'calls are logged at debug level')
    for (const secret of [agentKey, TEST_ADMIN_KEY, 'sk-provider-secret-value', 'gov_wrong_key', prompt]) {
      assert.ok(!log.includes(secret), `the log contains ${secret.slice(0, 12)}…`)
    }
  })
})
