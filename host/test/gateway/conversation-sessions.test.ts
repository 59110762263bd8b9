/**
 * ConversationSessions on its own: which session a call without
 * `X-Gov-Session` continues, for each vendor and reference, and how the history
 * fingerprint tolerates a client re-encoding the messages it resends.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConversationSessions } from '../../src/gateway/conversation-sessions.js'
import { MemoryKv } from '../../src/kv/memory-kv.js'

const answer = (text: string, extra: Record<string, unknown> = {}) => ({
  id: `msg_${text.length}`,
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text, citations: null }],
  ...extra,
})

/** Run one answered Anthropic call: derive its session, then remember it with its answer. */
async function turn(
  sessions: ConversationSessions,
  agent: string,
  body: Record<string, unknown>,
  reply: Record<string, unknown>,
  requestId: string,
  tools: string[] = [],
): Promise<string> {
  const session = (await sessions.derive(agent, 'anthropic', body, requestId)) as string
  await sessions.remember(agent, 'anthropic', body, reply, session, tools)
  return session
}

describe('ConversationSessions', () => {
  it('continues an Anthropic history re-encoded by the client, and only for the same agent', async () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const first = { system: 'be brief', messages: [{ role: 'user', content: 'hello' }] }
    const s1 = await turn(sessions, 'a', first, answer('hi there'), 'r1')
    assert.equal(s1, 'thread:r1')
    // The same history with the user text as a block, the answer's text split in two blocks, fields dropped.
    const next = {
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'hi ' },
            { type: 'text', text: 'there' },
          ],
        },
        { role: 'user', content: 'and now?' },
      ],
    }
    assert.equal(await sessions.derive('a', 'anthropic', structuredClone(next), 'r2'), 'thread:r1')
    assert.equal(await sessions.derive('b', 'anthropic', structuredClone(next), 'r3'), 'thread:r3')
    // A different answer in the history, or a different system prompt: not the same conversation.
    const edited = structuredClone(next)
    edited.messages[1] = { role: 'assistant', content: [{ type: 'text', text: 'hi there!' }] }
    assert.equal(await sessions.derive('a', 'anthropic', edited, 'r4'), 'thread:r4')
    assert.equal(
      await sessions.derive('a', 'anthropic', { ...structuredClone(next), system: 'be long' }, 'r5'),
      'thread:r5',
    )
  })

  it('continues a 30-turn history turn after turn, and only the exact history (message digests are cached)', async () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const long = (n: number) => `${'word '.repeat(1000)}${n}`
    const messages: Record<string, unknown>[] = []
    let session: string | undefined
    for (let t = 0; t < 30; t++) {
      messages.push({ role: 'user', content: long(t) })
      const body = { system: 'be brief', messages: structuredClone(messages) }
      const reply = answer(`answer ${t} ${long(t + 100)}`)
      const got = await turn(sessions, 'a', body, reply, `r${t}`)
      // Turn 1 starts the session; every later turn continues it.
      assert.equal(got, session ?? 'thread:r0')
      session = got
      messages.push({ role: 'assistant', content: reply.content })
    }
    messages.push({ role: 'user', content: 'one more' })
    assert.equal(await sessions.derive('a', 'anthropic', { system: 'be brief', messages }, 'x1'), session)
    // One character changed in an earlier message, away from any sampled position of the
    // cache's pre-key (the second of 5 000): a different history, a session of its own.
    const edited = structuredClone(messages)
    const text = edited[10]!.content as string
    const changed = `${text[0]}W${text.slice(2)}`
    assert.equal(changed.length, text.length)
    edited[10]!.content = changed
    assert.equal(
      await sessions.derive('a', 'anthropic', { system: 'be brief', messages: edited }, 'x2'),
      'thread:x2',
    )
    // Parts that would read alike if joined without lengths: still different messages.
    const blocks = structuredClone(messages)
    blocks[10] = {
      role: 'user',
      content: [
        { type: 'text', text: `${text}` },
        { type: 'image', id: '' },
      ],
    }
    assert.equal(
      await sessions.derive('a', 'anthropic', { system: 'be brief', messages: blocks }, 'x3'),
      'thread:x3',
    )
    // The same text said by another role: a different history.
    const role = structuredClone(messages)
    role[12] = { role: 'assistant', content: messages[12]!.content }
    assert.equal(
      await sessions.derive('a', 'anthropic', { system: 'be brief', messages: role }, 'x5'),
      'thread:x5',
    )
    // The original history still continues (the cache did not keep the edited texts in its place).
    assert.equal(await sessions.derive('a', 'anthropic', { system: 'be brief', messages }, 'x4'), session)
  })

  it('follows a held thread by previous_message_id, with the tools of the turn that sent them', async () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const create = { thread: { type: 'create' }, messages: [{ role: 'user', content: 'go' }] }
    const s1 = await turn(sessions, 'a', create, answer('calling', { id: 'msg_1' }), 'r1', ['send_message'])
    const cont = { thread: { type: 'continue', previous_message_id: 'msg_1' }, messages: [] }
    const s2 = await turn(sessions, 'a', cont, answer('done', { id: 'msg_2' }), 'r2')
    assert.equal(s2, s1)
    assert.deepEqual(sessions.heldTools(cont), ['send_message'])
    // The tools carry on to the turn after (it sent none either).
    const cont2 = { thread: { type: 'continue', previous_message_id: 'msg_2' }, messages: [] }
    assert.equal(await sessions.derive('a', 'anthropic', cont2, 'r3'), s1)
    assert.deepEqual(sessions.heldTools(cont2), ['send_message'])
    // Another agent naming the message id: a session of its own, no tools.
    const theirs = { thread: { type: 'continue', previous_message_id: 'msg_1' }, messages: [] }
    assert.equal(await sessions.derive('b', 'anthropic', theirs, 'r4'), 'message:msg_1')
    assert.equal(sessions.heldTools(theirs), undefined)
  })

  it('keeps the Responses references and derives nothing for Chat Completions', async () => {
    const sessions = new ConversationSessions(new MemoryKv())
    const body = { input: 'hi' }
    const s1 = (await sessions.derive('a', 'openai-responses', body, 'r1')) as string
    assert.equal(s1, 'response:r1')
    await sessions.remember('a', 'openai-responses', body, { id: 'resp_1' }, s1, [])
    assert.equal(await sessions.derive('a', 'openai-responses', { previous_response_id: 'resp_1' }, 'r2'), s1)
    assert.equal(
      await sessions.derive('a', 'openai-responses', { conversation: { id: 'conv_9' } }, 'r3'),
      'conversation:conv_9',
    )
    assert.equal(await sessions.derive('a', 'openai', { messages: [] }, 'r4'), undefined)
  })
})
