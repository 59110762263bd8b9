/**
 * Streams held back while gov checks them stay alive: with a slow provider,
 * keep-alives the SDKs ignore flow before the answer, the x-gov headers come
 * as trailers, and a refusal after the stream opened is the vendor's
 * in-stream error event.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

function chunk(content: string, finish: string | null = null) {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: finish ? {} : { role: 'assistant', content }, finish_reason: finish }] })}\n\n`
}
const slowAnswer = (text: string) => ({
  sse: `${chunk(text)}${chunk('', 'stop')}data: [DONE]\n\n`,
  delayMs: 400,
})

/** POST with node:http to see the raw stream and its trailers. */
function rawCall(url: string, key: string, body: unknown) {
  return new Promise<{ status: number; text: string; trailers: Record<string, string | undefined> }>(
    (resolve, reject) => {
      const req = request(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
      req.on('response', (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => {
          text += c
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, trailers: res.trailers }))
      })
      req.on('error', reject)
      req.end(JSON.stringify(body))
    },
  )
}

describe('held-back streams send keep-alives', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway({ plugins: [], env: { GOV_STREAM_KEEPALIVE_MS: '50' } })
    await t.createPipeline('ka', 'standard')
    key = await t.createAgent('ka-agent', 'ka')
  })
  after(() => t.close())

  it('sends keep-alives before the checked answer, and the x-gov headers as trailers', async () => {
    t.mock.enqueue(slowAnswer('All good here.'))
    const res = await rawCall(t.url, key, {
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    assert.equal(res.status, 200)
    const firstData = res.text.indexOf('data:')
    assert.ok(
      res.text.indexOf(': keep-alive') >= 0 && res.text.indexOf(': keep-alive') < firstData,
      res.text.slice(0, 200),
    )
    assert.match(res.text, /All good here\./)
    assert.equal(res.trailers['x-gov-pipeline-steps'], '11')
    assert.ok(res.trailers['x-gov-token'])
  })

  it('works with the SDKs, and a refusal after the stream opened is an in-stream error', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    t.mock.enqueue(slowAnswer('Fine answer.'))
    let text = ''
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? ''
    assert.equal(text, 'Fine answer.')
    t.mock.enqueue(slowAnswer('Reach me at jane.doe@example.com'))
    await assert.rejects(async () => {
      const refused = await openai.chat.completions.create(
        { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'X-Gov-Flags': 'pii=block' } },
      )
      for await (const _ of refused) {
      }
    }, OpenAI.APIError)
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    t.mock.enqueue({
      sse: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Slow but fine."}}\n\n',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ].join(''),
      delayMs: 400,
    })
    const final = await anthropic.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalText()
    assert.equal(final, 'Slow but fine.')
  })

  it("a Responses stream that fails after it opened raises the SDK error with gov's code", async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    t.mock.enqueue({ status: 500, json: { error: { message: 'boom', type: 'server_error' } }, delayMs: 400 })
    const err = await openai.responses
      .stream({ model: 'gpt-4o-mini', input: 'hi' })
      .finalResponse()
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    // Before, the SDK threw "expected 'response.created' event, got error" and lost the code.
    assert.ok(err instanceof OpenAI.APIError, String(err))
    assert.equal(err.code, 'upstream_error')
  })
})
