/**
 * Sessions are scoped per agent: a session id is the caller's string, so two
 * agents sending the same one must share nothing — through both vendors'
 * endpoints, on one gateway and on two gateways sharing Redis. Also the admin
 * view of a session and its clearing (audited).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

const VICTIM = 'victim.person@corp-secret.example'

function clients(t: TestGateway, key: string, session: string) {
  const headers = { 'X-Gov-Session': session }
  return {
    openai: new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0, defaultHeaders: headers }),
    anthropic: new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0, defaultHeaders: headers }),
  }
}

export async function crossAgentCase(a: TestGateway, b: TestGateway, keyA: string, keyB: string) {
  const session = `shared-${randomUUID().slice(0, 8)}`
  const agentA = clients(a, keyA, session)
  const agentB = clients(b, keyB, session)
  const mine = await agentA.openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `my email is ${VICTIM}` }],
  })
  assert.equal(mine.choices[0].message.content, `my email is ${VICTIM}`, 'agent A gets its own value back')
  assert.match(JSON.stringify(a.mock.requests.at(-1)?.body), /<EMAIL_ADDRESS_1>/)
  const probe = 'Please write a short note to <EMAIL_ADDRESS_1>'
  const viaOpenAi = await agentB.openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: probe }],
  })
  assert.equal(viaOpenAi.choices[0].message.content, probe)
  const viaAnthropic = await agentB.anthropic.messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 64,
    messages: [{ role: 'user', content: probe }],
  })
  const text = viaAnthropic.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  assert.equal(text, probe)
  const streamed = await agentB.anthropic.messages
    .stream({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: probe }] })
    .finalText()
  for (const answer of [viaOpenAi.choices[0].message.content, text, streamed]) {
    assert.ok(!answer?.includes(VICTIM), 'agent B must never see agent A’s value')
  }
}

describe('sessions are scoped per agent', () => {
  let t: TestGateway
  let keyA: string
  let keyB: string
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline('sess-std', 'standard')
    keyA = await t.createAgent('sess-agent-a', 'sess-std')
    keyB = await t.createAgent('sess-agent-b', 'sess-std')
  })
  after(() => t.close())

  it('gives agent B nothing of agent A’s session with the same id (both vendors)', async () => {
    await crossAgentCase(t, t, keyA, keyB)
  })

  it('shows a session to admins and clears it, audited', async () => {
    const session = `view-${randomUUID().slice(0, 8)}`
    const { openai } = clients(t, keyA, session)
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `write to ${VICTIM}` }],
    })
    const view = await t.admin('GET', `/sessions/sess-agent-a/${session}`)
    assert.equal(view.status, 200)
    assert.equal(view.body.agent_id, 'sess-agent-a')
    assert.equal(view.body.session_id, session)
    assert.ok(!view.text.includes(VICTIM), 'the admin view never carries raw values')
    assert.equal((await t.admin('GET', `/sessions/no-such-agent/${session}`)).status, 404)
    assert.equal(
      (await t.admin('GET', `/sessions/sess-agent-a/${session}`, undefined, { key: keyA })).status,
      403,
    )
    const cleared = await t.admin('DELETE', `/sessions/sess-agent-a/${session}`)
    assert.equal(cleared.status, 204)
    const audit = await t.admin('GET', '/audit?kind=admin&limit=5')
    assert.ok(
      JSON.stringify(audit.body).includes('session.clear'),
      `session.clear is audited: ${audit.text.slice(0, 300)}`,
    )
    // After clearing, the old placeholder no longer restores in that session.
    const after = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'say <EMAIL_ADDRESS_1>' }],
    })
    assert.equal(after.choices[0].message.content, 'say <EMAIL_ADDRESS_1>')
  })
})
