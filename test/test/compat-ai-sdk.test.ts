/**
 * The Vercel AI SDK through gov: `@ai-sdk/openai` as `openai(model)` (the
 * Responses API, its default) and `openai.chat(model)`, and `@ai-sdk/anthropic`,
 * each with `generateText`/`streamText` on default settings.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { APICallError, generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'
import {
  assertMaskedUpstream,
  type CompatGateway,
  FEATURE,
  PII_PROMPT,
  queueChatAnswer,
  startCompatGateway,
  TOOL_RESULT,
} from './helpers/compat.js'

type Flavour = 'responses' | 'chat' | 'anthropic'

const CLIENTS: { name: string; flavour: Flavour }[] = [
  { name: 'AI SDK openai(model) (Responses)', flavour: 'responses' },
  { name: 'AI SDK openai.chat(model)', flavour: 'chat' },
  { name: 'AI SDK @ai-sdk/anthropic', flavour: 'anthropic' },
]

function modelFor(g: CompatGateway, flavour: Flavour, key = g.key): LanguageModel {
  if (flavour === 'anthropic')
    return createAnthropic({ apiKey: key, baseURL: `${g.t.url}/v1` })('claude-sonnet-4-6')
  const openai = createOpenAI({ apiKey: key, baseURL: `${g.t.url}/v1` })
  return flavour === 'chat' ? openai.chat('gpt-4o-mini') : openai('gpt-4o-mini')
}

for (const { name, flavour } of CLIENTS) {
  describe(name, () => {
    let g: CompatGateway
    let model: LanguageModel
    before(async () => {
      g = await startCompatGateway(`aisdk-${flavour}`)
      model = modelFor(g, flavour)
    })
    after(() => g.close())

    /** The tool of the loop; on Chat Completions it also queues the final answer (see queueChatAnswer). */
    const sendMessage = (stream: boolean, seen: string[]) =>
      tool({
        description: 'send a message',
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          seen.push(text)
          if (flavour === 'chat') queueChatAnswer(g.t, TOOL_RESULT, stream)
          return TOOL_RESULT
        },
      })

    it(FEATURE.plain, async () => {
      const { text } = await generateText({ model, prompt: 'Hello there', maxRetries: 0 })
      assert.equal(text, 'Hello there')
    })

    it(FEATURE.streaming, async () => {
      const result = streamText({ model, prompt: 'Hello streaming world', maxRetries: 0 })
      let deltas = ''
      for await (const delta of result.textStream) deltas += delta
      assert.equal(deltas, 'Hello streaming world')
    })

    it(FEATURE.toolLoop, async () => {
      const seen: string[] = []
      const { text, steps } = await generateText({
        model,
        prompt: '[mock:tool_echo] tell Bob hi',
        tools: { send_message: sendMessage(false, seen) },
        stopWhen: stepCountIs(4),
        maxRetries: 0,
      })
      assert.equal(seen.length, 1)
      assert.match(seen[0], /tell Bob hi/)
      assert.equal(steps.length, 2)
      assert.match(text, new RegExp(TOOL_RESULT))
    })

    it(FEATURE.streamedToolLoop, async () => {
      const seen: string[] = []
      const result = streamText({
        model,
        prompt: '[mock:tool_echo] tell Ann hi',
        tools: { send_message: sendMessage(true, seen) },
        stopWhen: stepCountIs(4),
        maxRetries: 0,
      })
      let deltas = ''
      for await (const delta of result.textStream) deltas += delta
      assert.equal(seen.length, 1)
      assert.match(seen[0], /tell Ann hi/)
      assert.match(deltas, new RegExp(TOOL_RESULT))
    })

    it(FEATURE.badKey, async () => {
      await assert.rejects(
        generateText({ model: modelFor(g, flavour, 'gov_wrong'), prompt: 'hi', maxRetries: 0 }),
        (err: unknown) => APICallError.isInstance(err) && err.statusCode === 401,
      )
    })

    it(FEATURE.pii, async () => {
      const { text } = await generateText({ model, prompt: PII_PROMPT, maxRetries: 0 })
      assertMaskedUpstream(g.t)
      assert.equal(text, PII_PROMPT)
      const result = streamText({ model, prompt: PII_PROMPT, maxRetries: 0 })
      let deltas = ''
      for await (const delta of result.textStream) deltas += delta
      assertMaskedUpstream(g.t)
      assert.equal(deltas, PII_PROMPT)
    })
  })
}
