/**
 * break_circuit through a running gateway with the official SDKs: consecutive
 * provider failures (5xx, reset) open the circuit of that provider and model;
 * then calls get 503 circuit_open with retry-after and never reach the
 * provider (JSON and streamed, both vendors); 4xx answers do not count; two
 * replicas on one Redis share the circuit.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'
import { skipWithoutScaleOut, unique, withTwoReplicas } from './replicas.js'

const SERVER_ERROR = { status: 500, json: { error: { message: 'boom', type: 'server_error', code: null } } }

function openAiError(err: unknown) {
  assert.ok(err instanceof OpenAI.APIError, String(err))
  return {
    status: err.status,
    code: (err.error as { code?: string })?.code,
    retryAfter: err.headers?.get('retry-after'),
  }
}
function anthropicError(err: unknown) {
  assert.ok(err instanceof Anthropic.APIError, String(err))
  return {
    status: err.status,
    code: (err.error as { error?: { code?: string } })?.error?.code,
    retryAfter: err.headers?.get('retry-after'),
  }
}

describe('break_circuit through the gateway', () => {
  let t: TestGateway
  let openai: OpenAI
  let anthropic: Anthropic
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline(
      'circuit',
      'standard',
      onlySteps('standard', { break_circuit: { failure_threshold: 2, open_s: 120 } }),
    )
    const key = await t.createAgent('circuit-agent', 'circuit')
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
  })
  after(() => t.close())

  const chat = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hello' }] })

  it('OpenAI JSON: two 5xx in a row open the circuit; the next call is 503 circuit_open without an upstream call', async () => {
    for (let i = 0; i < 2; i++) {
      t.mock.enqueue(SERVER_ERROR)
      await assert.rejects(openai.chat.completions.create(chat('gpt-4o')), (err) => {
        assert.equal(openAiError(err).status, 500)
        return true
      })
    }
    const sent = t.mock.requests.length
    await assert.rejects(openai.chat.completions.create(chat('gpt-4o')), (err) => {
      const e = openAiError(err)
      assert.equal(e.status, 503)
      assert.equal(e.code, 'circuit_open')
      assert.ok(Number(e.retryAfter) > 0 && Number(e.retryAfter) <= 120, `retry-after ${e.retryAfter}`)
      return true
    })
    assert.equal(t.mock.requests.length, sent, 'the provider was not called')
    const other = await openai.chat.completions.create(chat('gpt-4o-mini'))
    assert.equal(other.choices[0].message.content, 'hello', 'another model of the provider still flows')
    const metrics = await t.admin('GET', '/metrics')
    assert.match(metrics.text, /gov_circuit_state\{provider="openai",model="gpt-4o"\} 1/)
  })

  it('bad settings are refused when the pipeline is created', async () => {
    for (const overrides of [
      { break_circuit: { failure_threshold: 0 } },
      { break_circuit: { open_s: 'soon' } },
    ]) {
      const res = await t.admin('POST', '/pipelines', {
        pipeline_id: 'bad-circuit',
        preset: 'standard',
        overrides,
      })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'GOV_ERR_STEP_SETTINGS_INVALID')
      assert.equal(res.body.error.details.step, 'break_circuit')
    }
  })

  it('4xx answers are the caller’s fault and never open the circuit', async () => {
    // A recorded error, named in the prompt: no queued answer can be left for the next test.
    const bad = { model: 'gpt-4.1-mini', messages: [{ role: 'user' as const, content: '[mock:error_400]' }] }
    for (let i = 0; i < 3; i++) {
      await assert.rejects(openai.chat.completions.create(bad), (err) => {
        assert.equal(openAiError(err).status, 400)
        return true
      })
    }
    assert.equal(
      (await openai.chat.completions.create(chat('gpt-4.1-mini'))).choices[0].message.content,
      'hello',
    )
  })

  it('Anthropic JSON and stream: 529 overloaded twice opens the circuit, refused in the Anthropic error format', async () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [{ role: 'user' as const, content: 'hello' }],
    }
    const overloaded = { ...body, messages: [{ role: 'user' as const, content: '[mock:error_529]' }] }
    for (let i = 0; i < 2; i++) {
      await assert.rejects(anthropic.messages.create(overloaded), (err) => {
        assert.equal(anthropicError(err).status, 529)
        return true
      })
    }
    await assert.rejects(anthropic.messages.create(body), (err) => {
      const e = anthropicError(err)
      assert.deepEqual([e.status, e.code], [503, 'circuit_open'])
      assert.ok(Number(e.retryAfter) > 0)
      return true
    })
    await assert.rejects(anthropic.messages.stream(body).finalMessage(), (err) => {
      assert.equal(anthropicError(err).code, 'circuit_open')
      return true
    })
  })

  // Last: a queued answer a reset leaves behind cannot reach another test.
  it('OpenAI stream: connection resets open the circuit too, and a stream is refused before it starts', async () => {
    for (let i = 0; i < 2; i++) {
      t.mock.enqueue({ destroy: true })
      await assert.rejects(openai.chat.completions.create({ ...chat('gpt-4.1'), stream: true }))
    }
    await assert.rejects(openai.chat.completions.create({ ...chat('gpt-4.1'), stream: true }), (err) => {
      assert.equal(openAiError(err).code, 'circuit_open')
      return true
    })
  })
})

describe('break_circuit across two replicas on one Redis', () => {
  it('a circuit opened by failures seen on both replicas refuses calls on both', {
    skip: skipWithoutScaleOut,
  }, async () => {
    await withTwoReplicas('break_circuit', async (a, b) => {
      await a.createPipeline(
        'circuit',
        'standard',
        onlySteps('standard', { break_circuit: { failure_threshold: 3, open_s: 120 } }),
      )
      const key = await a.createAgent(unique('circuit'), 'circuit')
      // Circuits are global per provider and model: a model of its own keeps runs apart in the shared Redis.
      const body = { model: unique('gpt-4o'), messages: [{ role: 'user', content: 'hi' }] }
      a.mock.enqueue(SERVER_ERROR)
      assert.equal((await a.call('/v1/chat/completions', body, { key })).status, 500)
      a.mock.enqueue(SERVER_ERROR)
      assert.equal((await b.call('/v1/chat/completions', body, { key })).status, 500)
      for (let i = 0; i < 4; i++) a.mock.enqueue(SERVER_ERROR)
      // Concurrent failures past the threshold: one replica opens the circuit, once.
      const burst = await Promise.all([a, b, a, b].map((g) => g.call('/v1/chat/completions', body, { key })))
      assert.ok(burst.every((r) => r.status === 500 || r.status === 503))
      const sent = a.mock.requests.length
      for (const g of [a, b]) {
        const refused = await g.call('/v1/chat/completions', body, { key })
        assert.equal(refused.status, 503)
        assert.equal(refused.body.error.code, 'circuit_open')
        assert.ok(Number(refused.headers.get('retry-after')) > 0)
      }
      assert.equal(a.mock.requests.length, sent)
      const opened = [await a.admin('GET', '/metrics'), await b.admin('GET', '/metrics')]
        .map((m) => /gov_circuit_transitions_total\{[^}]*transition="opened"\} (\d+)/.exec(m.text)?.[1])
        .map(Number)
        .reduce((x, y) => (Number.isNaN(y) ? x : x + y), 0)
      assert.equal(opened, 1, 'opened once across both replicas')
    })
  })
})
