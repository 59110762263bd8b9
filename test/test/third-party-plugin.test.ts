import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startGateway } from '@gov/host'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

describe('a step package outside plugins/, loaded by name through GOV_PLUGINS', () => {
  let t: TestGateway
  let client: OpenAI
  before(async () => {
    t = await startTestGateway({ env: { GOV_PLUGINS: 'gov-step-keyword-guard' } })
    await t.createPipeline(
      'kw',
      'standard',
      onlySteps('standard', { keyword_guard: { keywords: ['merger'], action: 'block' }, fx_pass: {} }),
    )
    client = new OpenAI({
      apiKey: await t.createAgent('kw-agent', 'kw'),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  it('lists the step with its package and version', async () => {
    const res = await t.admin('GET', '/pipelines/kw')
    const step = res.body.steps.find((s: { name: string }) => s.name === 'keyword_guard')
    assert.equal(step.package, 'gov-step-keyword-guard')
    assert.equal(step.version, '1.0.0')
    assert.deepEqual(
      res.body.steps
        .filter((s: { status: string }) => s.status === 'active')
        .map((s: { name: string }) => s.name),
      ['keyword_guard', 'fx_pass'],
    )
  })

  it('blocks through the SDK, and answers with respond after an update', async () => {
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'the merger' }],
      }),
      (err: unknown) =>
        err instanceof OpenAI.PermissionDeniedError &&
        (err.error as { code?: string }).code === 'keyword_blocked',
    )
    const ok = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'lunch?' }],
    })
    assert.equal(ok.choices[0].message.content, 'lunch?')
    await t.admin('PUT', '/pipelines/kw', {
      preset: 'standard',
      overrides: onlySteps('standard', {
        keyword_guard: { keywords: ['merger'], action: 'respond', reply: 'no comment' },
      }),
    })
    const answered = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'the merger' }],
    })
    assert.equal(answered.choices[0].message.content, 'no comment')
  })

  it('refuses to start with a missing plugin package, with a coded error', async () => {
    await assert.rejects(
      startGateway({
        env: {
          GOV_PORT: '0',
          LOG_LEVEL: 'silent',
          GOV_ADMIN_API_KEY: 'k',
          GOV_PLUGINS: 'gov-step-does-not-exist',
        },
      }),
      (err: unknown) => (err as { code?: string }).code === 'GOV_ERR_PLUGIN_NOT_FOUND',
    )
  })
})
