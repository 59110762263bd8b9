/**
 * The hot path answers cached lookups (key → agent, agent → pipeline → chain,
 * provider key, capability token of the same grant in the same second) without
 * waiting on a promise. These tests check that nothing an admin changes waits
 * for a cache: the next call sees it, as before.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeJwt } from 'jose'
import { ConversationSessions } from '../../src/gateway/conversation-sessions.js'
import { MemoryKv } from '../../src/kv/memory-kv.js'
import {
  type CallResult,
  chatBody,
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'

const EMPTY = onlySteps('standard', {})

function claims(res: CallResult): Record<string, unknown> & { token: string } {
  assert.equal(res.status, 200, res.text)
  const token = res.headers.get('x-gov-token')
  assert.ok(token, 'an allowed call carries x-gov-token')
  return { token, ...(decodeJwt(token) as Record<string, unknown>) }
}

/**
 * Run `pair` (two calls at once) until both tokens were issued in the same
 * second (a pair can straddle a second boundary; five tries are plenty).
 */
async function inOneSecond(pair: () => Promise<[CallResult, CallResult]>) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [a, b] = await pair()
    const [ca, cb] = [claims(a), claims(b)]
    if (ca.iat === cb.iat) return [ca, cb] as const
  }
  throw new Error('no two calls landed in the same second in five tries')
}

describe('warm lookups and admin changes', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
    await t.createPipeline('warm', 'standard', EMPTY)
    await t.createPipeline('warm-other', 'standard', EMPTY)
  })
  after(() => t.close())

  const call = (key: string, text = 'hello', headers: Record<string, string> = {}) =>
    t.call('/v1/chat/completions', chatBody(text), { key, headers })

  it('refuses a rotated key on the next call although its lookup was cached', async () => {
    const key = await t.createAgent('warm-rotate', 'warm')
    for (let i = 0; i < 3; i++) assert.equal((await call(key)).status, 200)
    const rotated = await t.admin('POST', '/agents/warm-rotate/rotate-key')
    assert.equal(rotated.status, 200)
    assert.equal((await call(key)).status, 401, 'the old key, cached a moment ago, is refused')
    assert.equal(claims(await call(rotated.body.api_key)).sub, 'warm-rotate')
  })

  it('refuses a deleted agent on the next call', async () => {
    const key = await t.createAgent('warm-delete', 'warm')
    assert.equal((await call(key)).status, 200)
    assert.equal((await t.admin('DELETE', '/agents/warm-delete')).status, 204)
    assert.equal((await call(key)).status, 401)
  })

  it('takes a pipeline update and a reassignment on the next call', async () => {
    const key = await t.createAgent('warm-move', 'warm')
    const first = claims(await call(key))
    assert.equal(first.pipeline, 'warm')
    const updated = await t.admin('PUT', '/pipelines/warm', { preset: 'standard', overrides: EMPTY })
    assert.equal(updated.status, 200)
    const second = claims(await call(key))
    assert.equal(second.pipeline_version, updated.body.version)
    assert.notEqual(second.pipeline_version, first.pipeline_version)
    assert.notEqual(second.token, first.token, 'a new pipeline version is a new grant')
    assert.equal((await t.admin('PUT', '/pipelines/warm-other/assign/warm-move')).status, 200)
    assert.equal(claims(await call(key)).pipeline, 'warm-other')
  })

  it('gives one agent’s calls in one second one token, and never another agent’s or session’s', async () => {
    const a = await t.createAgent('warm-tok-a', 'warm')
    const b = await t.createAgent('warm-tok-b', 'warm')
    const [a1, a2] = await inOneSecond(() => Promise.all([call(a, 'one'), call(a, 'two')]))
    assert.equal(a2.token, a1.token, 'same grant, same second: the same token')
    assert.equal(a2.jti, a1.jti)
    const [ta, tb] = await inOneSecond(() => Promise.all([call(a), call(b)]))
    assert.notEqual(ta.token, tb.token)
    assert.equal(tb.sub, 'warm-tok-b')
    const [s1, s2] = await inOneSecond(() =>
      Promise.all([call(a, 'x', { 'x-gov-session': 's-1' }), call(a, 'x', { 'x-gov-session': 's-2' })]),
    )
    assert.notEqual(s1.token, s2.token)
    assert.deepEqual([s1.sid, s2.sid], ['s-1', 's-2'])
    // Two agents sending the same session id in one second: each gets a token of its own.
    const [sa, sb] = await inOneSecond(() =>
      Promise.all([
        call(a, 'x', { 'x-gov-session': 's-shared' }),
        call(b, 'x', { 'x-gov-session': 's-shared' }),
      ]),
    )
    assert.notEqual(sa.token, sb.token)
    assert.notEqual(sa.jti, sb.jti)
    assert.deepEqual([sa.sub, sb.sub], ['warm-tok-a', 'warm-tok-b'])
    const tools = {
      tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }],
    }
    const [plain, withTools] = await inOneSecond(() =>
      Promise.all([call(a), t.call('/v1/chat/completions', chatBody('hello', tools), { key: a })]),
    )
    assert.notEqual(plain.token, withTools.token)
    assert.deepEqual(withTools.tools, ['search'])
  })
})

describe('GOV_TOKEN_REUSE=off through the gateway', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({ env: { GOV_TOKEN_REUSE: 'off' } })
    await t.createPipeline('cold', 'standard', EMPTY)
  })
  after(() => t.close())

  it('signs a token per call, also within one second', async () => {
    const key = await t.createAgent('cold-agent', 'cold')
    const call = () => t.call('/v1/chat/completions', chatBody('hi'), { key })
    const [a, b] = await inOneSecond(() => Promise.all([call(), call()]))
    assert.notEqual(a.jti, b.jti)
    assert.notEqual(a.token, b.token)
  })

  it('refuses a gateway start with an unknown GOV_TOKEN_REUSE', async () => {
    await assert.rejects(startTestGateway({ env: { GOV_TOKEN_REUSE: 'sometimes' } }), /GOV_TOKEN_REUSE/)
  })
})

describe('ConversationSessions.derive answers at once when nothing stored is needed', () => {
  const isThenable = (value: unknown) => typeof (value as { then?: unknown } | undefined)?.then === 'function'

  it('a first Anthropic turn, a new Responses call and Chat Completions need no promise', () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const first = sessions.derive('a', 'anthropic', messagesBody('hi'), 'r1')
    assert.equal(first, 'thread:r1')
    assert.equal(sessions.derive('a', 'openai-responses', { input: 'hi' }, 'r2'), 'response:r2')
    assert.equal(
      sessions.derive('a', 'openai-responses', { input: 'hi', conversation: 'c-9' }, 'r3'),
      'conversation:c-9',
    )
    assert.equal(sessions.derive('a', 'openai', chatBody('hi'), 'r4'), undefined)
  })

  it('a continued conversation looks up what was stored, scoped by agent', async () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const body = messagesBody('hi')
    const session = sessions.derive('a', 'anthropic', body, 'r1') as string
    const reply = { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] }
    await sessions.remember('a', 'anthropic', body, reply, session, [])
    const next = {
      ...messagesBody('hi'),
      messages: [
        ...(body.messages as unknown[]),
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'more' },
      ],
    }
    const continued = sessions.derive('a', 'anthropic', next, 'r2')
    assert.ok(isThenable(continued), 'a history with an answer is looked up')
    assert.equal(await continued, 'thread:r1')
    assert.equal(await sessions.derive('b', 'anthropic', structuredClone(next), 'r3'), 'thread:r3')
    const previous = sessions.derive('a', 'openai-responses', { previous_response_id: 'resp_1' }, 'r4')
    assert.ok(isThenable(previous))
    assert.equal(await previous, 'response:resp_1')
  })
})
