/**
 * Shared pieces of the client-library compatibility tests (`compat-*.test.ts`):
 * one gateway per file on the standard preset, the fixed feature names the
 * README table is built from, and what the mock provider cannot script itself.
 */
import assert from 'node:assert/strict'
import { startTestGateway, type TestGateway } from '@gov/host/testing'

/** The features every client is tested on; `scripts/compat-table.mjs` makes the README columns from these names. */
export const FEATURE = {
  plain: 'plain',
  streaming: 'streaming',
  toolLoop: 'tool loop',
  streamedToolLoop: 'streamed tool loop',
  badKey: 'bad key',
  pii: 'PII masked and restored',
} as const

export const EMAIL = 'jane.doe@example.com'
export const PII_PROMPT = `Please write to ${EMAIL} today`
/** What the test tool returns; the final answer must carry it, proving the tool result went back to the model. */
export const TOOL_RESULT = 'delivered-4711'

export interface CompatGateway {
  t: TestGateway
  key: string
  close(): Promise<void>
}

export async function startCompatGateway(name: string): Promise<CompatGateway> {
  const t = await startTestGateway({ plugins: [] })
  await t.createPipeline(name, 'standard')
  const key = await t.createAgent(`${name}-agent`, name)
  return { t, key, close: () => t.close() }
}

/** The body the provider last received, as JSON text. */
export function lastSent(t: TestGateway): string {
  return JSON.stringify(t.mock.requests.at(-1)?.body)
}

/** The provider never saw the raw address, only a placeholder. */
export function assertMaskedUpstream(t: TestGateway): void {
  const sent = lastSent(t)
  assert.ok(!sent.includes(EMAIL), `provider saw raw PII: ${sent}`)
  assert.match(sent, /<EMAIL_ADDRESS_\d+>/)
}

/**
 * The mock echoes the last *user* text of a Chat Completions request, so after a
 * tool result it would call the tool again; a tool's `execute` queues the final
 * answer instead (as JSON or as a chat.completion.chunk stream).
 */
export function queueChatAnswer(t: TestGateway, text: string, stream: boolean): void {
  const base = { id: 'chatcmpl-compat', created: 1_700_000_000, model: 'gpt-4o-mini' }
  if (!stream) {
    t.mock.enqueue({
      json: {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    })
    return
  }
  const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, ...choice }], ...extra })}\n\n`
  t.mock.enqueue({
    sse:
      chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }) +
      chunk({ delta: { content: text }, finish_reason: null }) +
      chunk(
        { delta: {}, finish_reason: 'stop' },
        { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      ) +
      'data: [DONE]\n\n',
  })
}
