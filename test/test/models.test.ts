/**
 * The small /v1 endpoints through the official SDKs: the model list (both
 * vendors' formats), and any other /v1 path answered after authentication in
 * the caller's vendor error format.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import { MOCK_MODELS, startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

describe('GET /v1/models and other /v1 paths', () => {
  let t: TestGateway
  let key: string
  before(async () => {
    t = await startTestGateway({ plugins: [] })
    key = await t.createAgent('models-agent')
  })
  after(() => t.close())

  it('lists the provider’s models in each vendor’s format', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    const ids: string[] = []
    for await (const model of openai.models.list()) ids.push(model.id)
    assert.deepEqual(ids, [...MOCK_MODELS.openai])
    assert.equal((await openai.models.retrieve('gpt-4o')).id, 'gpt-4o')
    const anthropic = new Anthropic({ apiKey: key, baseURL: t.url, maxRetries: 0 })
    const names: string[] = []
    for await (const model of anthropic.models.list()) names.push(model.id)
    assert.deepEqual(names, [...MOCK_MODELS.anthropic])
  })

  it('refuses a bad key with the SDKs’ authentication errors', async () => {
    const openai = new OpenAI({ apiKey: 'gov_wrong', baseURL: `${t.url}/v1`, maxRetries: 0 })
    await assert.rejects(openai.models.list(), OpenAI.AuthenticationError)
    const anthropic = new Anthropic({ apiKey: 'gov_wrong', baseURL: t.url, maxRetries: 0 })
    await assert.rejects(anthropic.models.list(), Anthropic.AuthenticationError)
  })

  it('answers other /v1 paths after authentication, in the vendor format', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 })
    await assert.rejects(
      openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hi' }),
      (err: unknown) =>
        err instanceof OpenAI.NotFoundError &&
        /gov serves .*count_tokens.*GET \/v1\/models\/\{id\}/.test(err.message),
    )
    const bad = new OpenAI({ apiKey: 'gov_wrong', baseURL: `${t.url}/v1`, maxRetries: 0 })
    await assert.rejects(
      bad.embeddings.create({ model: 'text-embedding-3-small', input: 'hi' }),
      OpenAI.AuthenticationError,
    )
    const res = await fetch(`${t.url}/v1/files`, {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    })
    assert.equal(res.status, 404)
    const body = (await res.json()) as { type: string; error: { type: string } }
    assert.equal(body.type, 'error')
  })
})
