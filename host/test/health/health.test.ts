import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { slowReadyStep } from '../../src/testing/fixture-steps.js'
import { onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

describe('health and metrics', () => {
  let t: TestGateway
  const slow = slowReadyStep()
  before(async () => {
    t = await startTestGateway({ plugins: [slow.plugin], env: { GOV_DEFAULT_PRESET: 'standard' } })
  })
  after(() => t.close())

  it('is live and ready on the embedded defaults', async () => {
    const live = await fetch(`${t.url}/health/live`)
    assert.equal(live.status, 200)
    assert.deepEqual(await live.json(), { status: 'ok' })
    const ready = await fetch(`${t.url}/health/ready`)
    assert.equal(ready.status, 200)
    assert.deepEqual(await ready.json(), {
      status: 'ok',
      checks: { database: 'ok', policy: 'ok', redis: 'ok' },
    })
    const legacy = await fetch(`${t.url}/health`)
    const body = (await legacy.json()) as { status: string; storage: string; version: string }
    assert.equal(legacy.status, 200)
    assert.equal(body.status, 'healthy')
    assert.equal(body.storage, 'memory')
    assert.match(body.version, /^\d+\.\d+\.\d+/)
  })

  it('answers /health/startup 503 until every start-up step is ready, and gates calls on it', async () => {
    await t.createPipeline('slow', 'standard', onlySteps('standard', { fx_slow: {} }))
    const key = await t.createAgent('slow-agent', 'slow')
    // The stored pipeline's chain is built on its first call; it waits for readiness.
    const pending = t.call(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { key },
    )
    await new Promise((r) => setTimeout(r, 100))
    const starting = await fetch(`${t.url}/health/startup`)
    assert.equal(starting.status, 503)
    assert.equal(((await starting.json()) as { checks: { models: string } }).checks.models, 'loading')
    slow.release()
    assert.equal((await pending).status, 200)
    // The default preset's real detectors may still be loading too: wait for them, within a bound.
    let status = 0
    for (let i = 0; i < 200 && status !== 200; i++) {
      if (i) await new Promise((r) => setTimeout(r, 50))
      status = (await fetch(`${t.url}/health/startup`)).status
    }
    assert.equal(status, 200)
  })

  it('serves metrics to the admin only, with the spec metrics and step latencies', async () => {
    assert.equal((await t.admin('GET', '/metrics', undefined, { key: null })).status, 401)
    const res = await t.admin('GET', '/metrics')
    assert.equal(res.status, 200)
    for (const name of [
      'gov_http_requests_total',
      'gov_pipeline_blocks_total',
      'gov_pii_detections_total',
      'gov_capability_tokens_total',
      'gov_active_agents',
      'gov_step_duration_seconds',
    ]) {
      assert.match(res.text, new RegExp(`# TYPE ${name} `), name)
    }
    assert.match(
      res.text,
      /gov_http_requests_total\{method="POST",path="\/v1\/chat\/completions",status="200"\} \d/,
    )
    assert.match(res.text, /gov_step_duration_seconds_count\{step="fx_slow",phase="request"\} 1/)
    assert.match(res.text, /gov_active_agents 1/)
  })

  it('lists agents worst first in the fleet overview', async () => {
    await t.createPipeline('ov', 'standard', onlySteps('standard', {}))
    await t.createAgent('quiet-agent', 'ov')
    const res = await t.admin('GET', '/health/overview')
    assert.equal(res.status, 200)
    const scores = res.body.agents.map((a: { score: number }) => a.score)
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => a - b),
    )
    assert.ok(
      res.body.agents.every(
        (a: { agent_id: string; score: number }) =>
          typeof a.agent_id === 'string' && a.score >= 0 && a.score <= 100,
      ),
    )
  })
})
