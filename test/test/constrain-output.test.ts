/**
 * constrain_output through a running gateway with the official SDKs: an answer
 * over max_chars, off the pipeline's or the request's own JSON Schema, or
 * matching a deny pattern is refused with 403 output_invalid (JSON and
 * streamed, both vendors); with on_violation: retry the provider is asked once
 * more with the violation as feedback, and a second wrong answer is refused.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { type MockResponse, onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
}
const GOOD = '{"name":"Ann","age":41}'
const WRONG = 'Sure! Ann is 41 years old.'

const invalid = (err: unknown) =>
  (err instanceof OpenAI.PermissionDeniedError &&
    (err.error as { code?: string }).code === 'output_invalid') ||
  (err instanceof Anthropic.PermissionDeniedError &&
    (err.error as { error?: { code?: string } }).error?.code === 'output_invalid')

/** A provider text answer, in the vendor's JSON or SSE, for the mock's queue. */
function answer(vendor: 'openai' | 'anthropic', text: string, stream: boolean): MockResponse {
  if (vendor === 'openai') {
    const head = { id: 'chatcmpl-co', created: 1_756_000_000, model: 'gpt-4o-mini' }
    if (!stream) {
      return {
        json: {
          ...head,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
        },
      }
    }
    const chunk = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    return {
      sse: `${chunk({ role: 'assistant', content: '' }, null)}${chunk({ content: text }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`,
    }
  }
  const message = {
    id: 'msg_co',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 5 },
  }
  if (!stream) return { json: { ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn' } }
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  return {
    sse:
      event('message_start', { message: { ...message, content: [], stop_reason: null } }) +
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }) +
      event('content_block_stop', { index: 0 }) +
      event('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      }) +
      event('message_stop', {}),
  }
}

describe('constrain_output through the gateway', () => {
  let t: TestGateway
  const clients: Record<string, { openai: OpenAI; anthropic: Anthropic }> = {}
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    const pipelines: Record<string, Record<string, unknown>> = {
      limits: { max_chars: 40, deny_patterns: ['/project\\s+falcon/i'] },
      schema: { json_schema: PERSON },
      retry: { json_schema: PERSON, on_violation: 'retry' },
      plain: {},
    }
    for (const [name, settings] of Object.entries(pipelines)) {
      await t.createPipeline(name, 'standard', onlySteps('standard', { constrain_output: settings }))
      const key = await t.createAgent(`co-${name}`, name)
      clients[name] = {
        openai: new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 }),
        anthropic: new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 }),
      }
    }
  })
  after(() => t.close())

  /** Ask for `text` back (the mock echoes it), JSON or streamed; resolves to the answer text. */
  async function ask(
    pipeline: string,
    vendor: 'openai' | 'anthropic',
    text: string,
    stream: boolean,
    extra = {},
  ) {
    const { openai, anthropic } = clients[pipeline]
    if (vendor === 'openai') {
      const body = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: text }], ...extra }
      if (!stream) return (await openai.chat.completions.create(body)).choices[0].message.content ?? ''
      let out = ''
      for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) {
        out += chunk.choices[0]?.delta?.content ?? ''
      }
      return out
    }
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user' as const, content: text }],
    }
    const message = stream
      ? await anthropic.messages.stream(body).finalMessage()
      : await anthropic.messages.create(body)
    return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  }

  const modes = [
    ['openai', false],
    ['openai', true],
    ['anthropic', false],
    ['anthropic', true],
  ] as const

  it('refuses an answer over max_chars or matching a deny pattern (JSON and streamed, both vendors)', async () => {
    for (const [vendor, stream] of modes) {
      assert.equal(await ask('limits', vendor, 'a short answer', stream), 'a short answer')
      await assert.rejects(
        ask('limits', vendor, 'an answer that is much longer than forty characters', stream),
        invalid,
      )
      await assert.rejects(ask('limits', vendor, 'The Project Falcon date', stream), invalid)
    }
  })

  it("holds the answer to the pipeline's JSON Schema", async () => {
    for (const [vendor, stream] of modes) {
      assert.equal(await ask('schema', vendor, GOOD, stream), GOOD)
      await assert.rejects(ask('schema', vendor, WRONG, stream), invalid)
      await assert.rejects(ask('schema', vendor, '{"name":"Ann"}', stream), invalid)
    }
  })

  it("honours the request's own response_format json_schema, and refuses one it cannot enforce with 400", async () => {
    const format = {
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON } },
    }
    assert.equal(await ask('plain', 'openai', GOOD, false, format), GOOD)
    await assert.rejects(ask('plain', 'openai', WRONG, true, format), invalid)
    assert.equal(await ask('plain', 'openai', WRONG, false), WRONG, 'without a format any text passes')
    const before = t.mock.requests.length
    const unsafe = {
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'x', schema: { type: 'string', pattern: '(a+)+\\1' } },
      },
    }
    await assert.rejects(
      ask('plain', 'openai', GOOD, false, unsafe),
      (err: unknown) =>
        err instanceof OpenAI.BadRequestError &&
        (err.error as { code?: string }).code === 'response_format_invalid',
    )
    assert.equal(t.mock.requests.length, before, 'nothing went upstream')
  })

  it('asks the provider once more with feedback and returns the corrected answer (JSON and streamed, both vendors)', async () => {
    for (const [vendor, stream] of modes) {
      t.mock.enqueue(answer(vendor, WRONG, stream))
      t.mock.enqueue(answer(vendor, GOOD, stream))
      const before = t.mock.requests.length
      assert.equal(await ask('retry', vendor, 'who is Ann?', stream), GOOD, `${vendor} stream=${stream}`)
      assert.equal(t.mock.requests.length, before + 2, 'one retry')
      const retried = t.mock.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] }
      const [refused, feedback] = retried.messages.slice(-2)
      assert.equal(refused.role, 'assistant')
      assert.equal(refused.content, WRONG)
      assert.equal(feedback.role, 'user')
      assert.match(String(feedback.content), /JSON Schema/)
    }
  })

  it('refuses at pipeline creation a deny pattern RE2 cannot run and a schema that does not compile', async () => {
    for (const settings of [
      { deny_patterns: ['ok', '(?=lookahead)x'] },
      { json_schema: { type: 'no-such-type' } },
    ]) {
      const res = await t.admin('POST', '/pipelines', {
        pipeline_id: 'co-bad',
        preset: 'standard',
        overrides: { constrain_output: settings },
      })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'GOV_ERR_STEP_SETTINGS_INVALID')
    }
  })

  it('refuses the call when the retried answer is wrong too', async () => {
    for (const [vendor, stream] of modes) {
      t.mock.enqueue(answer(vendor, WRONG, stream))
      t.mock.enqueue(answer(vendor, 'still not JSON', stream))
      const before = t.mock.requests.length
      await assert.rejects(ask('retry', vendor, 'who is Ann?', stream), invalid)
      assert.equal(t.mock.requests.length, before + 2, 'no second retry')
    }
  })
})
