/**
 * Prompt-cache tokens through a running gateway: the mock provider answers
 * with the cache usage each vendor reports (OpenAI chat completions and
 * Responses: cached tokens inside the input count; Anthropic: cache reads and
 * writes outside it), JSON and streamed, and track_cost, pricing with the
 * host's price book (bundled genai-prices data), books what the provider bills:
 * `GET /agents/{id}/spend` and gov_cost_usd_total show the lower cost of a
 * cache hit, gov_tokens_total counts the total input.
 *
 * Expected prices are the providers' list prices per million tokens (which
 * the bundled genai-prices data holds): gpt-4o $2.50 input, $1.25 cached
 * input, $10 output; claude-sonnet-4-5 $3 input, $0.30 cache read, $3.75
 * cache write (5 min), $6 cache write (1 hour), $15 output.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'

const GPT_4O = (input: number, cached: number, output: number) =>
  ((input - cached) * 2.5 + cached * 1.25 + output * 10) / 1e6
const SONNET = (input: number, read: number, write: number, output: number) =>
  (input * 3 + read * 0.3 + write * 3.75 + output * 15) / 1e6

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`)

const sse = (events: [string | undefined, unknown][], done = false) =>
  events
    .map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    .join('') + (done ? 'data: [DONE]\n\n' : '')

const chatUsage = (prompt: number, cached: number | undefined, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } } : {}),
})

const chatAnswer = (usage: unknown) => ({
  id: 'chatcmpl-cache',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { role: 'assistant', content: 'cached answer' }, finish_reason: 'stop' }],
  usage,
})

const anthropicMessage = (usage: Record<string, unknown>) => ({
  id: 'msg_cache',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'cached answer' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage,
})

describe('prompt-cache tokens priced through the gateway', () => {
  let t: TestGateway
  let key: string
  let agent = 0
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    // No prices table: track_cost prices with the host's price book.
    await t.createPipeline('cache-cost', 'standard', onlySteps('standard', { track_cost: {} }))
  })
  after(() => t.close())

  /** A fresh agent per test, so each one's spend is its own. */
  async function freshAgent(): Promise<string> {
    const id = `cache-agent-${++agent}`
    key = await t.createAgent(id, 'cache-cost')
    return id
  }

  async function spend(agentId: string): Promise<number> {
    const res = await t.admin('GET', `/agents/${agentId}/spend`)
    assert.equal(res.status, 200, res.text)
    return res.body.spend.today_usd
  }

  async function metric(name: string, labels: string): Promise<number> {
    const text = (await t.admin('GET', '/metrics')).text
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `))
    assert.ok(line, `${name}{${labels}} in\n${text}`)
    return Number(line.split(' ')[1])
  }

  it('OpenAI chat completions, JSON: a cache hit costs the cached price, less than the same call without it', async () => {
    const id = await freshAgent()
    t.mock.enqueue({ json: chatAnswer(chatUsage(2_006, 1_920, 300)) })
    const hit = await t.call(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { key },
    )
    assert.equal(hit.status, 200, hit.text)
    assert.equal(
      hit.body.usage.prompt_tokens_details.cached_tokens,
      1_920,
      'the caller still sees the cache usage',
    )
    const afterHit = await spend(id)
    close(afterHit, GPT_4O(2_006, 1_920, 300))
    t.mock.enqueue({ json: chatAnswer(chatUsage(2_006, undefined, 300)) })
    await t.call(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { key },
    )
    const miss = (await spend(id)) - afterHit
    close(miss, GPT_4O(2_006, 0, 300))
    assert.ok(afterHit < miss, `hit ${afterHit} < miss ${miss}`)
    close(await metric('gov_cost_usd_total', `agent="${id}",model="gpt-4o"`), afterHit + miss)
    assert.equal(await metric('gov_tokens_total', `agent="${id}",model="gpt-4o",direction="input"`), 4_012)
  })

  it('OpenAI chat completions, streamed with include_usage: the usage chunk’s cached tokens are priced', async () => {
    const id = await freshAgent()
    const head = {
      id: 'chatcmpl-cache',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-2024-08-06',
    }
    t.mock.enqueue({
      sse: sse(
        [
          [
            undefined,
            { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' } }], usage: null },
          ],
          [undefined, { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }],
          [undefined, { ...head, choices: [], usage: chatUsage(5_000, 4_096, 50) }],
        ],
        true,
      ),
    })
    const res = await t.call(
      '/v1/chat/completions',
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { key },
    )
    assert.equal(res.status, 200, res.text)
    close(await spend(id), GPT_4O(5_000, 4_096, 50))
  })

  it('OpenAI Responses, JSON: input_tokens_details.cached_tokens is priced', async () => {
    const id = await freshAgent()
    t.mock.enqueue({
      json: {
        id: 'resp_cache',
        object: 'response',
        status: 'completed',
        model: 'gpt-4o-2024-08-06',
        output: [
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'ok', annotations: [] }],
          },
        ],
        usage: {
          input_tokens: 1_500,
          input_tokens_details: { cached_tokens: 1_280 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 1_520,
        },
      },
    })
    const res = await fetch(`${t.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', input: 'hi' }),
    })
    assert.equal(res.status, 200, await res.clone().text())
    close(await spend(id), GPT_4O(1_500, 1_280, 20))
  })

  /** A fresh agent's JSON `/v1/messages` call answered with `usage`; returns the agent's id. */
  async function anthropicJsonCall(usage: Record<string, unknown>): Promise<string> {
    const id = await freshAgent()
    t.mock.enqueue({ json: anthropicMessage(usage) })
    const res = await t.call(
      '/v1/messages',
      { model: 'claude-sonnet-4-5', max_tokens: 500, messages: [{ role: 'user', content: 'hi' }] },
      { key },
    )
    assert.equal(res.status, 200, res.text)
    return id
  }

  it('Anthropic, JSON: cache reads and writes are added to the input and priced at their own prices', async () => {
    const id = await anthropicJsonCall({
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3_000,
      output_tokens: 393,
    })
    const usd = await spend(id)
    close(usd, SONNET(21, 3_000, 188, 393))
    // Pricing input_tokens alone (what gov did before) books less than the provider bills.
    assert.ok(usd > SONNET(21, 0, 0, 393))
    assert.equal(
      await metric('gov_tokens_total', `agent="${id}",model="claude-sonnet-4-5",direction="input"`),
      21 + 3_000 + 188,
    )
  })

  it('Anthropic, JSON: writes to the one-hour cache are priced at the one-hour write price', async () => {
    const id = await anthropicJsonCall({
      input_tokens: 21,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3_000,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 88 },
      output_tokens: 393,
    })
    // 100 tokens for five minutes at $3.75/M, 88 for an hour at $6/M.
    close(await spend(id), SONNET(21, 3_000, 100, 393) + (88 * 6) / 1e6)
  })

  it('Anthropic, streamed: message_start’s cache counts and message_delta’s output are priced', async () => {
    const id = await freshAgent()
    const start = anthropicMessage({
      input_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 10_000,
      output_tokens: 1,
    })
    t.mock.enqueue({
      sse: sse([
        ['message_start', { type: 'message_start', message: { ...start, content: [], stop_reason: null } }],
        [
          'content_block_start',
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
        ],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 120 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ]),
    })
    const res = await t.call(
      '/v1/messages',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 500,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      },
      { key },
    )
    assert.equal(res.status, 200, res.text)
    close(await spend(id), SONNET(40, 10_000, 0, 120))
  })
})
