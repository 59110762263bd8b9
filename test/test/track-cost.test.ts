/**
 * track_cost through a running gateway with the official SDKs: the usage each
 * answer reports is priced and shows in `GET /agents/{agent_id}/spend` (JSON
 * and streamed, both vendors); a call whose estimate would exceed a budget, or
 * made after the budget is spent, is refused with 429 budget_exceeded before
 * it reaches the provider; two replicas on one Redis keep one spend.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { onlySteps, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'
import { skipWithoutScaleOut, unique, withTwoReplicas } from './replicas.js'

/** Dear prices, so a few mock tokens make visible money: $1000 / $2000 per million tokens. */
const PRICES = {
  'gpt-4o-mini': { input: 1000, output: 2000 },
  'claude-sonnet-4-6': { input: 1000, output: 2000 },
}
const costOf = (input: number, output: number) => (input * 1000 + output * 2000) / 1_000_000

async function spendOf(
  t: TestGateway,
  agentId: string,
): Promise<{ today_usd: number; month_usd: number } & Record<string, unknown>> {
  const res = await t.admin('GET', `/agents/${agentId}/spend`)
  assert.equal(res.status, 200, res.text)
  return res.body.spend
}

const chat = (text: string) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: text }],
})

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`)

describe('track_cost through the gateway', () => {
  let t: TestGateway
  let openai: OpenAI
  let anthropic: Anthropic
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    await t.createPipeline('cost', 'standard', onlySteps('standard', { track_cost: { prices: PRICES } }))
    await t.createPipeline(
      'budget',
      'standard',
      onlySteps('standard', { track_cost: { prices: PRICES, budgets: { agent_daily_usd: 0.02 } } }),
    )
    const key = await t.createAgent('cost-agent', 'cost')
    openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
  })
  after(() => t.close())

  it('OpenAI JSON and stream: the reported usage is priced into the agent’s spend', async () => {
    const before = (await spendOf(t, 'cost-agent')).today_usd
    const answer = await openai.chat.completions.create(chat('what does this cost?'))
    const usage = answer.usage!
    let expected = before + costOf(usage.prompt_tokens, usage.completion_tokens)
    close((await spendOf(t, 'cost-agent')).today_usd, expected)
    const stream = await openai.chat.completions.create({
      ...chat('and streamed?'),
      stream: true,
      stream_options: { include_usage: true },
    })
    for await (const chunk of stream) {
      if (chunk.usage) expected += costOf(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
    }
    const spend = await spendOf(t, 'cost-agent')
    close(spend.today_usd, expected)
    close(spend.month_usd, expected)
    const metrics = await t.admin('GET', '/metrics')
    assert.match(metrics.text, /gov_cost_usd_total\{agent="cost-agent",model="gpt-4o-mini"\} /)
    assert.match(
      metrics.text,
      /gov_tokens_total\{agent="cost-agent",model="gpt-4o-mini",direction="output"\} /,
    )
  })

  it('Anthropic JSON and stream: priced the same way', async () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'price me in the other format' }],
    }
    let expected = (await spendOf(t, 'cost-agent')).today_usd
    const answer = await anthropic.messages.create(body)
    expected += costOf(answer.usage.input_tokens, answer.usage.output_tokens)
    close((await spendOf(t, 'cost-agent')).today_usd, expected)
    const streamed = await anthropic.messages.stream(body).finalMessage()
    expected += costOf(streamed.usage.input_tokens, streamed.usage.output_tokens)
    close((await spendOf(t, 'cost-agent')).today_usd, expected)
  })

  it('a session’s spend shows in the admin session view', async () => {
    const answer = await openai.chat.completions.create(chat('in a session'), {
      headers: { 'x-gov-session': 'priced-session' },
    })
    const view = await t.admin('GET', '/sessions/cost-agent/priced-session')
    assert.equal(view.status, 200)
    close(
      view.body.steps.track_cost.spent_usd,
      costOf(answer.usage!.prompt_tokens, answer.usage!.completion_tokens),
    )
    assert.equal(view.body.steps.track_cost.budget_usd, null)
  })

  it('refuses a call whose estimate (max_tokens) would exceed the budget, before the provider, with what is left', async () => {
    const key = await t.createAgent('estimate-agent', 'budget')
    const client = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const sent = t.mock.requests.length
    await assert.rejects(
      client.chat.completions.create({ ...chat('a long essay'), max_tokens: 100_000 }),
      (err) => {
        assert.ok(err instanceof OpenAI.APIError)
        assert.equal(err.status, 429)
        assert.equal((err.error as { code?: string }).code, 'budget_exceeded')
        assert.ok(Number(err.headers?.get('retry-after')) > 0, 'retry when the day renews')
        return true
      },
    )
    assert.equal(t.mock.requests.length, sent, 'the provider was not called')
    assert.equal(
      (await client.chat.completions.create({ ...chat('short'), max_tokens: 1 })).object,
      'chat.completion',
    )
  })

  it('once the daily budget is spent, every call is refused, streams and Anthropic too; the spend view shows none left', async () => {
    const key = await t.createAgent('spent-agent', 'budget')
    const client = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const claude = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    // About 20 prompt tokens at $1000 per million: the first call spends the $0.02.
    await client.chat.completions.create({ ...chat('spend it all'), max_tokens: 1 })
    const spend = await spendOf(t, 'spent-agent')
    assert.ok(spend.today_usd >= 0.02, `spent ${spend.today_usd}`)
    assert.deepEqual(spend.remaining, { agent_daily_usd: 0, agent_monthly_usd: null })
    const refusal = (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError || err instanceof Anthropic.APIError, String(err))
      assert.equal(err.status, 429)
      return true
    }
    await assert.rejects(client.chat.completions.create({ ...chat('more'), max_tokens: 1 }), refusal)
    await assert.rejects(
      client.chat.completions.create({ ...chat('more'), max_tokens: 1, stream: true }),
      refusal,
    )
    await assert.rejects(
      claude.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (err) => {
        assert.ok(err instanceof Anthropic.APIError)
        assert.equal((err.error as { error?: { code?: string } }).error?.code, 'budget_exceeded')
        return true
      },
    )
  })

  it('bad settings are refused when the pipeline is created, naming the step', async () => {
    for (const overrides of [
      { track_cost: { budgets: { agent_daily_usd: -1 } } },
      { track_cost: { prices: { 'my-model': { input: 1 } } } },
      { track_cost: { unknown_model: 'maybe' } },
    ]) {
      const res = await t.admin('POST', '/pipelines', {
        pipeline_id: 'bad-cost',
        preset: 'standard',
        overrides,
      })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'GOV_ERR_STEP_SETTINGS_INVALID')
      assert.equal(res.body.error.details.step, 'track_cost')
    }
  })

  it('the spend endpoint needs the admin key', async () => {
    assert.equal((await t.admin('GET', '/agents/cost-agent/spend', undefined, { key: null })).status, 401)
  })
})

describe('track_cost across two replicas on one Redis', () => {
  it('spend through both replicas adds up exactly under concurrency, and a budget spent on one is enforced by the other', {
    skip: skipWithoutScaleOut,
  }, async () => {
    await withTwoReplicas('track_cost', async (a, b) => {
      await a.createPipeline('cost', 'standard', onlySteps('standard', { track_cost: { prices: PRICES } }))
      await a.createPipeline(
        'budget',
        'standard',
        onlySteps('standard', { track_cost: { prices: PRICES, budgets: { agent_daily_usd: 0.02 } } }),
      )
      const agent = unique('spender')
      const key = await a.createAgent(agent, 'cost')
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).call('/v1/chat/completions', { ...chat(`call ${i}`), max_tokens: 5 }, { key }),
        ),
      )
      const expected = answers.reduce((sum, r) => {
        assert.equal(r.status, 200)
        return sum + costOf(r.body.usage.prompt_tokens, r.body.usage.completion_tokens)
      }, 0)
      close((await spendOf(a, agent)).today_usd, expected)
      close((await spendOf(b, agent)).today_usd, expected)

      const limited = unique('limited')
      const limitedKey = await a.createAgent(limited, 'budget')
      assert.equal(
        (await a.call('/v1/chat/completions', { ...chat('spend'), max_tokens: 1 }, { key: limitedKey }))
          .status,
        200,
      )
      const refused = await b.call(
        '/v1/chat/completions',
        { ...chat('more'), max_tokens: 1 },
        { key: limitedKey },
      )
      assert.equal(refused.status, 429)
      assert.equal(refused.body.error.code, 'budget_exceeded')
    })
  })
})
