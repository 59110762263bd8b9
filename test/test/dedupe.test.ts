/**
 * dedupe through a running gateway on the standard preset, with the official
 * SDKs: identical calls in flight go upstream once; a deterministic repeat is
 * replayed (also to a streaming caller, re-chunked); agents never share.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

function openAiAnswer(text: string) {
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  }
}

describe('dedupe through the gateway (standard preset)', () => {
  let t: TestGateway
  let key: string
  let otherKey: string
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline('dd', 'standard')
    key = await t.createAgent('dd-agent', 'dd')
    otherKey = await t.createAgent('dd-other', 'dd')
  })
  after(() => t.close())

  it('sends identical calls in flight upstream once; every caller gets the answer', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const question = `summarise ticket ${randomUUID()}`
    t.mock.enqueue({ json: openAiAnswer('the summary'), delayMs: 400 })
    const before = t.mock.requests.length
    const calls = await Promise.all(
      [0, 1, 2].map(() =>
        openai.chat.completions
          .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] })
          .withResponse(),
      ),
    )
    assert.equal(t.mock.requests.length - before, 1, 'one upstream call')
    for (const { data } of calls) assert.equal(data.choices[0].message.content, 'the summary')
    const marks = calls.map(({ response }) => response.headers.get('x-gov-dedupe')).sort()
    assert.deepEqual(marks, ['coalesced', 'coalesced', null])
  })

  it('replays a temperature-0 repeat, streamed to a streaming caller, and never to another agent', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const question = `what is the capital of Norway? ${randomUUID()}`
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      temperature: 0,
      messages: [{ role: 'user' as const, content: question }],
    }
    const first = await anthropic.messages.create(body)
    const sent = t.mock.requests.length
    const { data: again, response } = await anthropic.messages.create(body).withResponse()
    assert.equal(response.headers.get('x-gov-dedupe'), 'replayed')
    assert.deepEqual(again.content, first.content)
    const streamed = await anthropic.messages.stream(body).finalText()
    assert.equal(streamed, question)
    assert.equal(t.mock.requests.length, sent, 'no upstream call for the repeats')
    const other = new Anthropic({ apiKey: otherKey, baseURL: t.url, maxRetries: 0 })
    const { response: theirs } = await other.messages.create(body).withResponse()
    assert.equal(theirs.headers.get('x-gov-dedupe'), null)
    assert.equal(t.mock.requests.length, sent + 1, 'another agent goes upstream')
  })

  it('does not replay a repeat that is not deterministic', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const messages = [{ role: 'user' as const, content: `tell me a joke ${randomUUID()}` }]
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, temperature: 0.9 })
    const sent = t.mock.requests.length
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages, temperature: 0.9 })
      .withResponse()
    assert.equal(response.headers.get('x-gov-dedupe'), null)
    assert.equal(t.mock.requests.length, sent + 1)
  })
})
