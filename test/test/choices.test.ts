/**
 * `n > 1` on `/v1/chat/completions` with the official openai SDK: every choice
 * of the answer is governed, not only the first — PII restored in each, a secret
 * in the second redacted, a call to a denied tool dropped from the choice that
 * made it while the other choices keep theirs — as JSON and streamed. (The
 * Responses API has no `n`: one answer per call.)
 */
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

const EMAIL = 'carla.nummer@example.com'
const model = 'gpt-4o-mini'
const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

interface ScriptedChoice {
  content: string
  calls: { id: string; name: string; arguments: string }[]
}

/** The three choices the provider answers, written with the placeholder gov sent it. */
function scriptedChoices(secret: string): ScriptedChoice[] {
  return [
    {
      content: 'Dear <EMAIL_ADDRESS_1>, first draft.',
      calls: [{ id: 'call_a', name: 'send_message', arguments: '{"to":"<EMAIL_ADDRESS_1>"}' }],
    },
    {
      content: `Second draft, key ${secret}`,
      calls: [{ id: 'call_b', name: 'delete_file', arguments: '{"path":"/etc/passwd"}' }],
    },
    {
      content: 'Third draft for <EMAIL_ADDRESS_1>.',
      calls: [{ id: 'call_c', name: 'send_message', arguments: '{"to":"<EMAIL_ADDRESS_1>"}' }],
    },
  ]
}

const toolCall = (c: ScriptedChoice['calls'][number]) => ({
  id: c.id,
  type: 'function',
  function: { name: c.name, arguments: c.arguments },
})

function asJson(choices: ScriptedChoice[]) {
  return {
    id: 'chatcmpl-n',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: choices.map((c, index) => ({
      index,
      message: { role: 'assistant', content: c.content, tool_calls: c.calls.map(toolCall) },
      finish_reason: 'tool_calls',
    })),
    usage: { prompt_tokens: 20, completion_tokens: 30, total_tokens: 50 },
  }
}

/** The choices streamed interleaved, as OpenAI does with `n > 1`. */
function asSse(choices: ScriptedChoice[]): string {
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-n',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [{ index, delta, finish_reason: finish }],
    })}\n\n`
  let out = ''
  choices.forEach((_, i) => {
    out += chunk(i, { role: 'assistant', content: '' })
  })
  const halves = choices.map((c) => [c.content.slice(0, 9), c.content.slice(9)])
  for (const half of [0, 1])
    choices.forEach((_, i) => {
      out += chunk(i, { content: halves[i]?.[half] })
    })
  choices.forEach((c, i) => {
    c.calls.forEach((call, k) => {
      out += chunk(i, {
        tool_calls: [
          { index: k, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      })
      out += chunk(i, { tool_calls: [{ index: k, function: { arguments: call.arguments } }] })
    })
  })
  choices.forEach((_, i) => {
    out += chunk(i, {}, 'tool_calls')
  })
  return `${out}data: [DONE]\n\n`
}

describe('n > 1 on /v1/chat/completions (openai SDK): every choice governed', () => {
  let t: TestGateway
  let client: OpenAI
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    const id = randomUUID().slice(0, 8)
    await t.createPipeline(`choices-${id}`, 'standard', {
      filter_tools: { pin: true, deny: ['delete_*'], on_denied_call: 'drop' },
      // guard_loops stays on with a tight limit: the same call in several choices of one answer is one
      // call, so the three answers below make it three times in all (counted per choice it was six).
      // Cycles are off: every answer here offers send_message and delete_file, which read in order
      // over three answers is the cycle send_message → delete_file three times.
      guard_loops: { max_repeats: 3, detect_cycles: false },
    })
    client = new OpenAI({
      apiKey: await t.createAgent(`choices-${id}`, `choices-${id}`),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'send_message',
        parameters: { type: 'object', properties: { to: { type: 'string' } } },
      },
    },
  ]
  const request = {
    model,
    n: 3,
    messages: [{ role: 'user' as const, content: `Draft three notes to ${EMAIL}` }],
    tools,
  }
  const freshSecret = () => `AKIA${[...randomBytes(16)].map((b) => base32[b % 32]).join('')}`

  /** What every choice must look like after gov, however it was delivered. */
  function assertGoverned(
    choices: { content: string; calls: { id: string; name: string; arguments: string }[] }[],
    secret: string,
  ) {
    assert.equal(choices.length, 3)
    const [first, second, third] = choices as [(typeof choices)[0], (typeof choices)[0], (typeof choices)[0]]
    assert.equal(first.content, `Dear ${EMAIL}, first draft.`)
    assert.equal(third.content, `Third draft for ${EMAIL}.`)
    assert.ok(!second.content.includes(secret), second.content)
    assert.match(second.content, /\[REDACTED:aws_access_key_id\]/)
    assert.deepEqual(
      first.calls.map((c) => [c.name, JSON.parse(c.arguments)]),
      [['send_message', { to: EMAIL }]],
    )
    assert.deepEqual(
      third.calls.map((c) => [c.name, JSON.parse(c.arguments)]),
      [['send_message', { to: EMAIL }]],
    )
    assert.deepEqual(second.calls, [], 'the denied call is dropped from its choice only')
    const sent = JSON.stringify(t.mock.requests.at(-1)?.body)
    assert.ok(sent.includes('"n":3') && !sent.includes(EMAIL), sent)
  }

  it('governs each choice of a JSON answer', async () => {
    const secret = freshSecret()
    t.mock.enqueue({ json: asJson(scriptedChoices(secret)) })
    const res = await client.chat.completions.create(request)
    assertGoverned(
      res.choices.map((c) => ({
        content: c.message.content ?? '',
        calls: (c.message.tool_calls ?? []).map((call) => {
          assert.equal(call.type, 'function')
          return { id: call.id, name: call.function.name, arguments: call.function.arguments }
        }),
      })),
      secret,
    )
    assert.equal(res.choices[1]?.finish_reason, 'stop')
    assert.equal(res.choices[0]?.finish_reason, 'tool_calls')
  })

  it('governs each choice of a streamed answer', async () => {
    const secret = freshSecret()
    t.mock.enqueue({ sse: asSse(scriptedChoices(secret)) })
    const stream = await client.chat.completions.create({ ...request, stream: true })
    const byIndex = new Map<
      number,
      { content: string; calls: Map<number, { id: string; name: string; arguments: string }> }
    >()
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        let acc = byIndex.get(choice.index)
        if (!acc) {
          acc = { content: '', calls: new Map() }
          byIndex.set(choice.index, acc)
        }
        acc.content += choice.delta.content ?? ''
        for (const call of choice.delta.tool_calls ?? []) {
          const known = acc.calls.get(call.index) ?? { id: call.id ?? '', name: '', arguments: '' }
          known.name += call.function?.name ?? ''
          known.arguments += call.function?.arguments ?? ''
          acc.calls.set(call.index, known)
        }
      }
    }
    assertGoverned(
      [...byIndex.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, acc]) => ({ content: acc.content, calls: [...acc.calls.values()] })),
      secret,
    )
    // The SDK's own stream helper assembles the same three choices.
    t.mock.enqueue({ sse: asSse(scriptedChoices(secret)) })
    const final = await client.chat.completions.stream(request).finalChatCompletion()
    assert.deepEqual(
      final.choices.map((c) => c.message.content),
      [`Dear ${EMAIL}, first draft.`, final.choices[1]?.message.content, `Third draft for ${EMAIL}.`],
    )
    assert.match(final.choices[1]?.message.content ?? '', /\[REDACTED:aws_access_key_id\]/)
  })
})
