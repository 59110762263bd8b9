import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

describe('management API', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({ env: { GOV_LICENSE_SEATS: '3' } })
  })
  after(() => t.close())

  it('creates, lists, gets with resolved steps, updates and deletes pipelines', async () => {
    const created = await t.admin('POST', '/pipelines', {
      pipeline_id: 'support',
      preset: 'standard',
      overrides: { fx_block: { word: 'refund' }, fx_pass: {} },
    })
    assert.equal(created.status, 201)
    assert.equal(created.body.pipeline_id, 'support')
    assert.equal(created.body.version, 1)

    const list = await t.admin('GET', '/pipelines')
    assert.equal(list.status, 200)
    assert.ok(list.body.pipelines.some((p: { pipeline_id: string }) => p.pipeline_id === 'support'))

    const one = await t.admin('GET', '/pipelines/support')
    assert.equal(one.status, 200)
    assert.equal(one.body.mode, 'enforce')
    const names = one.body.steps.map((s: { name: string }) => s.name)
    for (const step of [
      'detect_injection',
      'detect_pii',
      'detect_business',
      'constrain_output',
      'filter_tools',
      'scan_secrets',
      'track_cost',
      'guard_loops',
      'break_circuit',
      'track_taint',
      'dedupe',
    ]) {
      assert.ok(names.includes(step), `standard names ${step}`)
    }
    const block = one.body.steps.find((s: { name: string }) => s.name === 'fx_block')
    assert.deepEqual(
      block.settings,
      { word: 'refund', level: 'confidential', strictness: 'on' },
      'defaults filled in',
    )
    assert.equal(block.status, 'active')
    assert.equal(block.on_error, 'fail_closed')

    const upd = await t.admin('PUT', '/pipelines/support', {
      preset: 'strict',
      overrides: { fx_block: { disabled: true } },
    })
    assert.equal(upd.status, 200)
    assert.equal(upd.body.version, 2)
    assert.equal(upd.body.steps.find((s: { name: string }) => s.name === 'fx_block').status, 'disabled')

    assert.equal((await t.admin('DELETE', '/pipelines/support')).status, 204)
    assert.equal((await t.admin('GET', '/pipelines/support')).status, 404)
  })

  it('refuses bad pipelines with stable codes', async () => {
    const cases: [unknown, number, string][] = [
      [{ preset: 'standard' }, 400, 'invalid_request'],
      [{ pipeline_id: 'x', preset: 'nope' }, 400, 'GOV_ERR_PIPELINE_UNKNOWN_PRESET'],
      [
        { pipeline_id: 'x', preset: 'standard', overrides: { no_such_step: {} } },
        400,
        'GOV_ERR_PIPELINE_UNKNOWN_STEP',
      ],
      [
        { pipeline_id: 'x', preset: 'standard', overrides: { fx_block: { word: 42 } } },
        400,
        'GOV_ERR_STEP_SETTINGS_INVALID',
      ],
      [
        { pipeline_id: 'x', preset: 'standard', overrides: { fx_block: { unknown_setting: 1 } } },
        400,
        'GOV_ERR_STEP_SETTINGS_INVALID',
      ],
      [
        { pipeline_id: 'x', preset: 'standard', overrides: { fx_block: { on_error: 'explode' } } },
        400,
        'GOV_ERR_STEP_SETTINGS_INVALID',
      ],
      [{ pipeline_id: 'x', preset: 'standard', overrides: { fx_block: 'yes' } }, 400, 'invalid_request'],
      [{ pipeline_id: 'bad id!', preset: 'standard' }, 400, 'invalid_request'],
    ]
    for (const [body, status, code] of cases) {
      const res = await t.admin('POST', '/pipelines', body)
      assert.equal(res.status, status, JSON.stringify(body))
      assert.equal(res.body.error.code, code, JSON.stringify(body))
    }
    await t.createPipeline('dup', 'standard')
    const dup = await t.admin('POST', '/pipelines', { pipeline_id: 'dup', preset: 'standard' })
    assert.equal(dup.status, 409)
    assert.equal(dup.body.error.code, 'conflict')
    assert.equal((await t.admin('PUT', '/pipelines/missing', { preset: 'standard' })).status, 404)
    assert.equal((await t.admin('PUT', '/pipelines/missing/assign/whoever')).status, 404)
  })

  it('manages agents: key shown once, hash stored, rotate, delete, seats', async () => {
    await t.createPipeline('agents-p', 'standard', onlySteps('standard', { fx_pass: {} }))
    const created = await t.admin('POST', '/agents', { agent_id: 'bot-1', pipeline_id: 'agents-p' })
    assert.equal(created.status, 201)
    assert.match(created.body.api_key, /^gov_/)
    assert.equal(created.body.pipeline_id, 'agents-p')
    const key = created.body.api_key
    const got = await t.admin('GET', '/agents/bot-1')
    assert.equal(got.status, 200)
    assert.equal(got.body.api_key, undefined, 'the key is shown only once')
    assert.equal(got.body.key_hash, undefined)
    assert.equal(
      (
        await t.call(
          '/v1/chat/completions',
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
          { key },
        )
      ).status,
      200,
    )

    const rotated = await t.admin('POST', '/agents/bot-1/rotate-key')
    assert.equal(rotated.status, 200)
    assert.notEqual(rotated.body.api_key, key)
    assert.equal(
      (
        await t.call(
          '/v1/chat/completions',
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
          { key },
        )
      ).status,
      401,
      'old key stops working at once',
    )
    assert.equal(
      (
        await t.call(
          '/v1/chat/completions',
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
          { key: rotated.body.api_key },
        )
      ).status,
      200,
    )

    const dup = await t.admin('POST', '/agents', { agent_id: 'bot-1' })
    assert.equal(dup.status, 409)
    assert.equal((await t.admin('POST', '/agents', { agent_id: 'bot-2', pipeline_id: 'nope' })).status, 404)
    assert.equal(
      (await t.admin('DELETE', '/pipelines/agents-p')).status,
      409,
      'an assigned pipeline cannot be deleted',
    )

    const list = await t.admin('GET', '/agents')
    assert.deepEqual(
      list.body.agents.map((a: { agent_id: string }) => a.agent_id),
      ['bot-1'],
    )

    // GOV_LICENSE_SEATS=3: bot-1 plus two more, then the fourth activation fails.
    assert.equal((await t.admin('POST', '/agents', { agent_id: 'bot-2' })).status, 201)
    assert.equal((await t.admin('POST', '/agents', { agent_id: 'bot-3' })).status, 201)
    const over = await t.admin('POST', '/agents', { agent_id: 'bot-4' })
    assert.equal(over.body.error.code, 'seat_limit_exceeded')
    assert.equal(over.status, 403)

    assert.equal((await t.admin('DELETE', '/agents/bot-1')).status, 204)
    assert.equal(
      (
        await t.call(
          '/v1/chat/completions',
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
          { key: rotated.body.api_key },
        )
      ).status,
      401,
    )
    assert.equal((await t.admin('GET', '/agents/bot-1')).status, 404)
    assert.equal(
      (await t.admin('POST', '/agents', { agent_id: 'bot-4' })).status,
      201,
      'a freed seat can be used again',
    )
  })

  it('imports a gov-pipeline.yaml, creating then updating', async () => {
    const yaml = `# written by gov assess\nversion: 1\npipeline:\n  pipeline_id: imported\n  preset: strict\n  overrides:\n    fx_block:\n      word: invoice # customer term\n  allow_flags: [fx]\n`
    const created = await t.admin('POST', '/pipelines/import', yaml, { contentType: 'application/yaml' })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.preset, 'strict')
    assert.deepEqual(created.body.allow_flags, ['fx'])
    const again = await t.admin('POST', '/pipelines/import', yaml.replace('invoice', 'refund'), {
      contentType: 'text/yaml',
    })
    assert.equal(again.status, 200)
    assert.equal(again.body.version, 2)
    const bad = await t.admin('POST', '/pipelines/import', 'pipeline: [unclosed', {
      contentType: 'application/yaml',
    })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'invalid_yaml')
  })

  it('answers unknown routes with 404 in gov error format', async () => {
    const res = await t.admin('GET', '/nope')
    assert.equal(res.status, 404)
    assert.equal(res.body.error.code, 'not_found')
  })
})
