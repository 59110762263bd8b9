/**
 * LangChain.js through gov: `ChatOpenAI` on Chat Completions and with
 * `useResponsesApi`, and `ChatAnthropic`, each with `invoke`, `stream` and
 * `bindTools` on default settings (only the base URL and key point at gov).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ChatAnthropic } from '@langchain/anthropic'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { type AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { ChatOpenAI } from '@langchain/openai'
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

type Flavour = 'chat' | 'responses' | 'anthropic'

const CLIENTS: { name: string; flavour: Flavour }[] = [
  { name: 'LangChain ChatOpenAI', flavour: 'chat' },
  { name: 'LangChain ChatOpenAI useResponsesApi', flavour: 'responses' },
  { name: 'LangChain ChatAnthropic', flavour: 'anthropic' },
]

function modelFor(g: CompatGateway, flavour: Flavour, apiKey = g.key): BaseChatModel {
  if (flavour === 'anthropic') {
    return new ChatAnthropic({ model: 'claude-sonnet-4-6', apiKey, anthropicApiUrl: g.t.url, maxRetries: 0 })
  }
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey,
    configuration: { baseURL: `${g.t.url}/v1` },
    maxRetries: 0,
    ...(flavour === 'responses' ? { useResponsesApi: true } : {}),
  })
}

async function streamed(model: BaseChatModel, messages: BaseMessage[] | string): Promise<AIMessageChunk> {
  let whole: AIMessageChunk | undefined
  for await (const chunk of await model.stream(messages)) whole = whole ? whole.concat(chunk) : chunk
  assert.ok(whole, 'the stream yielded no chunk')
  return whole
}

for (const { name, flavour } of CLIENTS) {
  describe(name, () => {
    let g: CompatGateway
    let model: BaseChatModel
    before(async () => {
      g = await startCompatGateway(`lc-${flavour}`)
      model = modelFor(g, flavour)
    })
    after(() => g.close())

    const sendMessage = tool(async ({ text }) => text, {
      name: 'send_message',
      description: 'send a message',
      schema: z.object({ text: z.string() }),
    })

    /** One round of the loop: ask, run the tool the model called, send its result back. */
    async function toolLoop(stream: boolean, prompt: string): Promise<string> {
      const withTools = model.bindTools?.([sendMessage])
      assert.ok(withTools)
      const human = new HumanMessage(prompt)
      const first = stream
        ? await streamed(withTools as BaseChatModel, [human])
        : await withTools.invoke([human])
      const call = first.tool_calls?.[0]
      assert.ok(call, 'the model called no tool')
      assert.equal(call.name, 'send_message')
      assert.match(String(call.args.text), /tell \w+ hi/)
      if (flavour === 'chat') queueChatAnswer(g.t, TOOL_RESULT, stream)
      const result = new ToolMessage({ content: TOOL_RESULT, tool_call_id: call.id ?? '' })
      const messages = [human, first, result]
      const second = stream
        ? await streamed(withTools as BaseChatModel, messages)
        : await withTools.invoke(messages)
      return second.text
    }

    it(FEATURE.plain, async () => {
      const answer = await model.invoke('Hello there')
      assert.equal(answer.text, 'Hello there')
    })

    it(FEATURE.streaming, async () => {
      const whole = await streamed(model, 'Hello streaming world')
      assert.equal(whole.text, 'Hello streaming world')
    })

    it(FEATURE.toolLoop, async () => {
      assert.match(await toolLoop(false, '[mock:tool_echo] tell Bob hi'), new RegExp(TOOL_RESULT))
    })

    it(FEATURE.streamedToolLoop, async () => {
      assert.match(await toolLoop(true, '[mock:tool_echo] tell Ann hi'), new RegExp(TOOL_RESULT))
    })

    it(FEATURE.badKey, async () => {
      await assert.rejects(modelFor(g, flavour, 'gov_wrong').invoke('hi'), (err: unknown) => {
        const e = err as { status?: number; lc_error_code?: string }
        return e.status === 401 || e.lc_error_code === 'MODEL_AUTHENTICATION'
      })
    })

    if (flavour === 'responses') {
      it('switches to the Responses API by itself for a model that prefers it', async () => {
        const pro = new ChatOpenAI({
          model: 'gpt-5.4-pro',
          apiKey: g.key,
          configuration: { baseURL: `${g.t.url}/v1` },
          maxRetries: 0,
        })
        assert.equal((await pro.invoke('Hello pro')).text, 'Hello pro')
        assert.equal(g.t.mock.requests.at(-1)?.path, '/v1/responses')
      })
    }

    it(FEATURE.pii, async () => {
      const answer = await model.invoke(PII_PROMPT)
      assertMaskedUpstream(g.t)
      assert.equal(answer.text, PII_PROMPT)
      const whole = await streamed(model, PII_PROMPT)
      assertMaskedUpstream(g.t)
      assert.equal(whole.text, PII_PROMPT)
    })
  })
}
