/**
 * track_taint through a running gateway with the official SDKs: PII seen on
 * one turn of a session stops a later call to a sink (JSON and streamed, both
 * vendors) and rides in the capability token; other sessions and other agents
 * with the same session id are untouched; an untrusted tool's result taints the
 * call; admins see the labels' origins and clear them; without a session
 * nothing accumulates; two replicas on one Redis share the labels.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'
import { skipWithoutScaleOut, withTwoReplicas } from './replicas.js'

const EMAIL = 'victim.person@corp-secret.example'
const STEPS = {
  detect_pii: {},
  track_taint: { sinks: { 'send_*': ['pii', 'untrusted'] }, untrusted_tools: ['web_*'], ttl_s: 600 },
}

function labelsOf(headers: Headers): string[] {
  const token = headers.get('x-gov-token')
  assert.ok(token, 'the answer carries a capability token')
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).labels ?? []
}

const tainted = (err: unknown) =>
  (err instanceof OpenAI.PermissionDeniedError &&
    (err.error as { code?: string }).code === 'taint_blocked') ||
  (err instanceof Anthropic.PermissionDeniedError &&
    (err.error as { error?: { code?: string } }).error?.code === 'taint_blocked')

const session = () => ({ 'X-Gov-Session': `taint-${randomBytes(4).toString('hex')}` })
const SEND = '[mock:tool_echo] post the weekly summary'

describe('track_taint through the gateway', () => {
  let t: TestGateway
  let openai: OpenAI
  let anthropic: Anthropic
  let other: OpenAI
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline('taint', 'standard', onlySteps('standard', STEPS))
    const key = await t.createAgent('taint-agent', 'taint')
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    other = new OpenAI({
      apiKey: await t.createAgent('taint-other', 'taint'),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  const say = (client: OpenAI, content: string, headers: Record<string, string>) =>
    client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }, { headers })
      .withResponse()

  it('refuses a sink on a later turn of a session that saw PII, JSON and streamed, both vendors', async () => {
    const headers = session()
    const first = await say(openai, `my email is ${EMAIL}`, headers)
    // An email address is PII classified confidential: both labels.
    assert.deepEqual(labelsOf(first.response.headers), ['confidential', 'pii'])
    const ok = await say(openai, 'what is the weather like?', headers)
    assert.deepEqual(labelsOf(ok.response.headers), ['confidential', 'pii'], 'later turns carry the labels')
    await assert.rejects(say(openai, SEND, headers), tainted)
    await assert.rejects(
      (async () => {
        const stream = await openai.chat.completions.create(
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: SEND }], stream: true },
          { headers },
        )
        for await (const _ of stream) {
        }
      })(),
      tainted,
    )
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: SEND }],
    }
    await assert.rejects(anthropic.messages.create(body, { headers }), tainted)
    await assert.rejects(anthropic.messages.stream(body, { headers }).finalMessage(), tainted)
  })

  it('leaves other sessions and another agent with the same session id alone', async () => {
    const headers = session()
    await say(openai, `my email is ${EMAIL}`, headers)
    const fresh = await say(openai, SEND, session())
    assert.equal(fresh.data.choices[0].message.tool_calls?.length, 1)
    const otherAgent = await say(other, SEND, headers)
    assert.equal(otherAgent.data.choices[0].message.tool_calls?.length, 1)
    assert.deepEqual(labelsOf(otherAgent.response.headers), [])
  })

  it('shows admins each label with its origin, and clears them', async () => {
    const headers = session()
    const sid = headers['X-Gov-Session']
    await say(openai, `my email is ${EMAIL}`, headers)
    const shown = await t.admin('GET', `/sessions/taint-agent/${sid}`)
    assert.equal(shown.status, 200)
    const pii = shown.body.steps.track_taint.labels.pii
    assert.equal(pii.step, 'detect_pii')
    assert.equal(pii.type, 'EMAIL_ADDRESS')
    assert.equal(pii.phase, 'request')
    assert.ok(!shown.text.includes(EMAIL), 'the view never holds the value')
    assert.equal((await t.admin('DELETE', `/sessions/taint-agent/${sid}`)).status, 204)
    const after = await say(openai, SEND, headers)
    assert.equal(after.data.choices[0].message.tool_calls?.length, 1, 'a cleared session may call the sink')
  })

  it("taints the call that feeds back an untrusted tool's result (both vendors)", async () => {
    await assert.rejects(
      openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: SEND },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_w1', type: 'function', function: { name: 'web_fetch', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_w1', content: 'page text' },
        ],
      }),
      tainted,
    )
    await assert.rejects(
      anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'read the page' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_w1', name: 'web_fetch', input: {} }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_w1', content: 'page text' },
              { type: 'text', text: SEND },
            ],
          },
        ],
      }),
      tainted,
    )
  })

  it('without a session nothing accumulates: only the call itself counts', async () => {
    await say(openai, `my email is ${EMAIL}`, {})
    const next = await say(openai, SEND, {})
    assert.equal(next.data.choices[0].message.tool_calls?.length, 1)
    assert.deepEqual(labelsOf(next.response.headers), [])
  })
})

describe('track_taint across two replicas on one Redis', {
  skip: skipWithoutScaleOut,
}, () => {
  it('enforces through one replica the taint set through the other', async () => {
    await withTwoReplicas('track_taint', async (a, b) => {
      await a.createPipeline('taint', 'standard', onlySteps('standard', STEPS))
      const key = await a.createAgent(`taint-${randomBytes(4).toString('hex')}`, 'taint')
      const headers = session()
      const chat = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
      assert.equal(
        (await a.call('/v1/chat/completions', chat(`I am ${EMAIL}`), { key, headers })).status,
        200,
      )
      const refused = await b.call('/v1/chat/completions', chat(SEND), { key, headers })
      assert.equal(refused.status, 403)
      assert.equal(refused.body.error.code, 'taint_blocked')
      const elsewhere = await b.call('/v1/chat/completions', chat(SEND), { key, headers: session() })
      assert.equal(elsewhere.status, 200)

      // Concurrent first sights through both replicas: the label is added exactly once (HSETNX on Redis).
      const burst = session()
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).call('/v1/chat/completions', chat(`mail ${EMAIL} now`), { key, headers: burst }),
        ),
      )
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 200, 200, 200],
      )
      const added = async (t: TestGateway) =>
        Number(
          (await t.admin('GET', '/metrics')).text.match(/gov_taint_labels_total\{label="pii"\} (\d+)/)?.[1] ??
            0,
        )
      // One pii label for the first session above, one for the burst.
      assert.equal((await added(a)) + (await added(b)), 2)
    })
  })
})
