/**
 * guard_loops through a running gateway with the official SDKs: the same tool
 * call repeated, a cycle of calls and too many turns are refused with 429
 * loop_detected (JSON and streamed, both vendors), per (agent, session) and the
 * agent without a session; counts are shared by two replicas on one Redis.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'
import { skipWithoutScaleOut, unique, withTwoReplicas } from './replicas.js'

const openAiError = (err: unknown) => {
  assert.ok(err instanceof OpenAI.APIError, String(err))
  return { status: err.status, code: (err.error as { code?: string })?.code }
}
const anthropicError = (err: unknown) => {
  assert.ok(err instanceof Anthropic.APIError, String(err))
  return { status: err.status, code: (err.error as { error?: { code?: string } })?.error?.code }
}
const LOOP = { status: 429, code: 'loop_detected' }
const session = (id: string) => ({ headers: { 'x-gov-session': id } })

describe('guard_loops through the gateway', () => {
  let t: TestGateway
  let openai: OpenAI
  let anthropic: Anthropic
  let turnsClient: OpenAI
  let cycleClient: OpenAI
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline(
      'loops',
      'standard',
      onlySteps('standard', { guard_loops: { max_repeats: 2, window_s: 600 } }),
    )
    await t.createPipeline('cycles', 'standard', onlySteps('standard', { guard_loops: { max_repeats: 0 } }))
    cycleClient = new OpenAI({
      apiKey: await t.createAgent('cycle-agent', 'cycles'),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
    await t.createPipeline('turns', 'standard', onlySteps('standard', { guard_loops: { max_turns: 2 } }))
    const key = await t.createAgent('loop-agent', 'loops')
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    turnsClient = new OpenAI({
      apiKey: await t.createAgent('turns-agent', 'turns'),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  const ask = (text: string) => ({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: `[mock:tool_echo] ${text}` }],
  })

  it('OpenAI JSON: the third identical tool call in a session is refused; another session is not', async () => {
    for (let i = 0; i < 2; i++) {
      const answer = await openai.chat.completions.create(ask('look up order 42'), session('o-json'))
      assert.equal(answer.choices[0].message.tool_calls?.[0]?.type, 'function')
    }
    await assert.rejects(
      openai.chat.completions.create(ask('look up order 42'), session('o-json')),
      (err) => {
        assert.deepEqual(openAiError(err), LOOP)
        return true
      },
    )
    const other = await openai.chat.completions.create(ask('look up order 42'), session('o-json-2'))
    assert.ok(other.choices[0].message.tool_calls?.length)
    const metrics = await t.admin('GET', '/metrics')
    assert.match(metrics.text, /gov_loop_detections_total\{rule="max_repeats"\} 1/)
  })

  it('OpenAI stream: refused before any byte of the answer is streamed', async () => {
    const streamed = async () => {
      const stream = await openai.chat.completions.create(
        { ...ask('stream order 7'), stream: true },
        session('o-stream'),
      )
      let calls = 0
      // A tool call's first chunk carries its id; argument pieces follow without one.
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.tool_calls?.[0]?.id) calls++
      return calls
    }
    assert.equal(await streamed(), 1)
    assert.equal(await streamed(), 1)
    await assert.rejects(streamed(), (err) => {
      assert.deepEqual(openAiError(err), LOOP)
      return true
    })
  })

  it('Anthropic JSON and stream: the same rule, in the Anthropic error format', async () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: '[mock:tool_echo] fetch page 3' }],
    }
    const first = await anthropic.messages.create(body, session('a-1'))
    assert.equal(first.content.find((b) => b.type === 'tool_use')?.name, 'send_message')
    const stream = anthropic.messages.stream(body, session('a-1'))
    assert.equal((await stream.finalMessage()).stop_reason, 'tool_use')
    await assert.rejects(anthropic.messages.create(body, session('a-1')), (err) => {
      assert.deepEqual(anthropicError(err), LOOP)
      return true
    })
    await assert.rejects(anthropic.messages.stream(body, session('a-1')).finalMessage(), (err) => {
      assert.deepEqual(anthropicError(err), LOOP)
      return true
    })
  })

  it('a cycle of two alternating calls is refused on its third round', async () => {
    const verdicts: string[] = []
    for (let i = 0; i < 6; i++) {
      try {
        await cycleClient.chat.completions.create(
          ask(i % 2 ? 'read the file' : 'list the folder'),
          session('cycle'),
        )
        verdicts.push('ok')
      } catch (err) {
        verdicts.push(openAiError(err).code ?? '?')
      }
    }
    assert.deepEqual(verdicts, ['ok', 'ok', 'ok', 'ok', 'ok', 'loop_detected'])
  })

  it('bad settings are refused when the pipeline is created', async () => {
    for (const overrides of [{ guard_loops: { cycle_by: 'args' } }, { guard_loops: { max_repeats: -1 } }]) {
      const res = await t.admin('POST', '/pipelines', {
        pipeline_id: 'bad-loops',
        preset: 'standard',
        overrides,
      })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'GOV_ERR_STEP_SETTINGS_INVALID')
      assert.equal(res.body.error.details.step, 'guard_loops')
    }
  })

  it('without X-Gov-Session the agent is the scope', async () => {
    await openai.chat.completions.create(ask('no session call'))
    await openai.chat.completions.create(ask('no session call'))
    await assert.rejects(openai.chat.completions.create(ask('no session call')), (err) => {
      assert.deepEqual(openAiError(err), LOOP)
      return true
    })
  })

  it('max_turns refuses the third call of a session before it reaches the provider; the admin view shows the count', async () => {
    const plain = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] }
    await turnsClient.chat.completions.create(plain, session('turns-1'))
    await turnsClient.chat.completions.create(plain, session('turns-1'))
    const sent = t.mock.requests.length
    await assert.rejects(turnsClient.chat.completions.create(plain, session('turns-1')), (err) => {
      assert.deepEqual(openAiError(err), LOOP)
      return true
    })
    assert.equal(t.mock.requests.length, sent, 'no upstream call')
    const view = await t.admin('GET', '/sessions/turns-agent/turns-1')
    assert.equal(view.status, 200)
    assert.equal(view.body.steps.guard_loops.turns, 3)
    assert.equal((await t.admin('DELETE', '/sessions/turns-agent/turns-1')).status, 204)
    const fresh = await turnsClient.chat.completions.create(plain, session('turns-1'))
    assert.equal(fresh.object, 'chat.completion', 'a cleared session starts counting again')
  })
})

describe('guard_loops across two replicas on one Redis', () => {
  it('counts a session’s repeats together: two calls through one replica, the third refused by the other', {
    skip: skipWithoutScaleOut,
  }, async () => {
    await withTwoReplicas('guard_loops', async (a, b) => {
      await a.createPipeline('loops', 'standard', onlySteps('standard', { guard_loops: { max_repeats: 2 } }))
      const key = await a.createAgent(unique('loops'), 'loops')
      const body = {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: '[mock:tool_echo] replicated call' }],
      }
      const headers = { 'x-gov-session': 'shared' }
      assert.equal((await a.call('/v1/chat/completions', body, { key, headers })).status, 200)
      assert.equal((await b.call('/v1/chat/completions', body, { key, headers })).status, 200)
      const third = await a.call('/v1/chat/completions', body, { key, headers })
      assert.equal(third.status, 429)
      assert.equal(third.body.error.code, 'loop_detected')
      const concurrent = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).call('/v1/chat/completions', body, { key, headers: { 'x-gov-session': 'burst' } }),
        ),
      )
      assert.equal(concurrent.filter((r) => r.status === 200).length, 2, 'exactly max_repeats got through')
    })
  })
})
