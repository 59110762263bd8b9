/**
 * An Anthropic conversation without `X-Gov-Session` keeps one session across
 * its turns: the SDK's tool runner (1.12) sends only the new turn with
 * `thread: {type: 'continue', previous_message_id}`, and gov continues the
 * session of that message; a client that resends the whole history continues
 * the session whose history (up to the last answer gov gave) matches.
 * Placeholders stay distinct and are restored per turn, the capability token
 * names the same session and the tools on every turn, a `container` reference
 * continues the session that created it, and nothing is shared across agents
 * or with another conversation.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createAnthropic } from '@ai-sdk/anthropic'
import Anthropic from '@anthropic-ai/sdk'
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod'
import { messagesBody, startTestGateway, type TestGateway } from '@gov/host/testing'
import { ChatAnthropic } from '@langchain/anthropic'
import { HumanMessage, ToolMessage } from '@langchain/core/messages'
import { tool as langchainTool } from '@langchain/core/tools'
import { generateText, stepCountIs, tool } from 'ai'
import { z } from 'zod'

const ALICE = 'alice.one@example.com'
const BOB = 'bob.two@example.org'
const model = 'claude-sonnet-4-6'

interface Claims {
  sid?: string
  tools: string[]
}

function claimsOf(token: string | null): Claims {
  assert.ok(token, 'an allowed call carries x-gov-token')
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as Claims
}

describe('Anthropic conversation by reference or by history, without X-Gov-Session', () => {
  let t: TestGateway
  let key = ''
  let otherKey = ''
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    const id = randomUUID().slice(0, 8)
    await t.createPipeline(`conv-${id}`, 'standard')
    key = await t.createAgent(`conv-a-${id}`, `conv-${id}`)
    otherKey = await t.createAgent(`conv-b-${id}`, `conv-${id}`)
  })
  after(() => t.close())

  /** A client that keeps the gov token of every answer. */
  const clientFor = (apiKey: string, tokens: (string | null)[]) =>
    new Anthropic({
      apiKey,
      baseURL: t.url,
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(url, init)
        tokens.push(res.headers.get('x-gov-token'))
        return res
      },
    })

  const textOf = (content: { type: string; text?: string }[]) =>
    content.map((block) => (block.type === 'text' ? block.text : '')).join('')

  async function runToolLoop(apiKey: string, stream: boolean) {
    const tokens: (string | null)[] = []
    const seen: string[] = []
    const sendMessage = betaZodTool({
      name: 'send_message',
      description: 'send a message',
      inputSchema: z.object({ text: z.string() }),
      run: ({ text }) => {
        seen.push(text)
        return `reply from ${BOB}: ok`
      },
    })
    const firstRequest = t.mock.requests.length
    const runner = clientFor(apiKey, tokens).beta.messages.toolRunner({
      model,
      max_tokens: 64,
      ...(stream ? { stream: true as const } : {}),
      messages: [{ role: 'user', content: `[mock:tool_echo] tell ${ALICE} hi` }],
      tools: [sendMessage],
    })
    const final = await runner.runUntilDone()
    return {
      tokens,
      seen,
      final,
      sent: t.mock.requests.slice(firstRequest).map((r) => JSON.stringify(r.body)),
    }
  }

  for (const stream of [false, true]) {
    it(`keeps placeholders distinct and restored across the tool runner's turns${stream ? ' (streamed)' : ''}`, async () => {
      const { tokens, seen, final, sent } = await runToolLoop(key, stream)
      assert.equal(sent.length, 2, 'two turns upstream')
      const [turn1, turn2] = sent as [string, string]
      // Turn 1: Alice masked. Turn 2 carries only the tool result with Bob, by reference to turn 1's answer:
      // Bob must not get Alice's placeholder, which the provider's copy of the thread already uses.
      assert.ok(!turn1.includes(ALICE) && turn1.includes('<EMAIL_ADDRESS_1>'), turn1)
      assert.match(turn2, /"thread":\{"type":"continue","previous_message_id":"msg_/)
      assert.ok(!turn2.includes(BOB) && !turn2.includes('<EMAIL_ADDRESS_1>'), turn2)
      assert.match(turn2, /reply from <EMAIL_ADDRESS_2>: ok/)
      // Each restored to its own value.
      assert.deepEqual(seen, [`[mock:tool_echo] tell ${ALICE} hi`])
      assert.equal(textOf(final.content), `reply from ${BOB}: ok`)
      // One session for both turns, and the tools on the later turn too.
      const [first, second] = tokens.map(claimsOf) as [Claims, Claims]
      assert.match(first.sid ?? '', /^thread:/)
      assert.equal(second.sid, first.sid)
      assert.deepEqual(second.tools, ['send_message'])
    })
  }

  it('gives another conversation, and another agent with the same history, a session of its own', async () => {
    const mine = await runToolLoop(key, false)
    const again = await runToolLoop(key, false)
    const theirs = await runToolLoop(otherKey, false)
    const sids = [mine, again, theirs].map((run) => claimsOf(run.tokens[1] as string).sid)
    assert.equal(new Set(sids).size, 3, `distinct sessions: ${sids.join(', ')}`)
  })

  it('continues a follow-up turn sent with messages.create on the whole history', async () => {
    const tokens: (string | null)[] = []
    const client = clientFor(key, tokens)
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: `note: ${ALICE} is the owner` }]
    const first = await client.messages.create({ model, max_tokens: 64, messages: history })
    assert.equal(textOf(first.content), `note: ${ALICE} is the owner`)
    history.push({ role: 'assistant', content: first.content })
    // The model refers back by placeholder: only the session knows it meant Alice.
    history.push({ role: 'user', content: `and ${BOB} too, after <EMAIL_ADDRESS_1>` })
    const second = await client.messages.create({ model, max_tokens: 64, messages: history })
    assert.equal(textOf(second.content), `and ${BOB} too, after ${ALICE}`)
    const [a, b] = tokens.map(claimsOf) as [Claims, Claims]
    assert.equal(b.sid, a.sid)
  })

  /** A fetch that keeps the gov token of every answer. */
  const keepingTokens =
    (tokens: (string | null)[]) => async (url: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(url, init)
      tokens.push(res.headers.get('x-gov-token'))
      return res
    }

  it('keeps one session across an AI SDK tool loop, which resends the whole history', async () => {
    const tokens: (string | null)[] = []
    const anthropic = createAnthropic({ apiKey: key, baseURL: `${t.url}/v1`, fetch: keepingTokens(tokens) })
    const { text } = await generateText({
      model: anthropic(model),
      prompt: `[mock:tool_echo] tell ${ALICE} hi`,
      tools: {
        send_message: tool({
          description: 'send a message',
          inputSchema: z.object({ text: z.string() }),
          execute: async () => `reply from ${BOB}: ok`,
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    })
    assert.equal(text, `reply from ${BOB}: ok`)
    const sids = tokens.map((token) => claimsOf(token).sid)
    assert.equal(sids.length, 2)
    assert.match(sids[0] ?? '', /^thread:/)
    assert.equal(sids[1], sids[0])
  })

  it('keeps one session across a LangChain ChatAnthropic tool loop', async () => {
    const tokens: (string | null)[] = []
    const chat = new ChatAnthropic({
      model,
      apiKey: key,
      anthropicApiUrl: t.url,
      maxRetries: 0,
      clientOptions: { fetch: keepingTokens(tokens) },
    })
    const sendMessage = langchainTool(async () => `reply from ${BOB}: ok`, {
      name: 'send_message',
      description: 'send a message',
      schema: z.object({ text: z.string() }),
    })
    const withTools = chat.bindTools([sendMessage])
    const human = new HumanMessage(`[mock:tool_echo] tell ${ALICE} hi`)
    const first = await withTools.invoke([human])
    const call = first.tool_calls?.[0]
    assert.ok(call)
    const result = new ToolMessage({ content: `reply from ${BOB}: ok`, tool_call_id: call.id ?? '' })
    const second = await withTools.invoke([human, first, result])
    assert.equal(second.text, `reply from ${BOB}: ok`)
    const sids = tokens.map((token) => claimsOf(token).sid)
    assert.equal(sids.length, 2)
    assert.equal(sids[1], sids[0])
  })

  it('continues the session of the call that created a container', async () => {
    const containerId = `container_${randomUUID().replaceAll('-', '')}`
    t.mock.enqueue({
      json: {
        id: 'msg_container',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: 'wrote the file' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 3 },
        container: { id: containerId, expires_at: '2099-01-01T00:00:00Z' },
      },
    })
    const created = await t.call('/v1/messages', messagesBody(`save ${ALICE} to a file`), { key })
    assert.equal(created.status, 200)
    const sid = claimsOf(created.headers.get('x-gov-token')).sid
    // A new history naming the container: the container's session, not a new one.
    const later = await t.call(
      '/v1/messages',
      messagesBody('read <EMAIL_ADDRESS_1> back', { container: containerId }),
      {
        key,
      },
    )
    assert.equal(later.status, 200)
    assert.equal(claimsOf(later.headers.get('x-gov-token')).sid, sid)
    assert.equal(later.body.content[0].text, `read ${ALICE} back`)
    // X-Gov-Session wins over the reference.
    const own = await t.call('/v1/messages', messagesBody('hi', { container: containerId }), {
      key,
      headers: { 'X-Gov-Session': `own-${randomUUID()}` },
    })
    assert.match(claimsOf(own.headers.get('x-gov-token')).sid ?? '', /^own-/)
    // Another agent naming the container gets a session of its own.
    const theirs = await t.call('/v1/messages', messagesBody('hi', { container: containerId }), {
      key: otherKey,
    })
    assert.notEqual(claimsOf(theirs.headers.get('x-gov-token')).sid, sid)
  })
})
