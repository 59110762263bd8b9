import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'

/** Text a provider sent that no step scanned; it must never reach the caller through an error message. */
const MARKER = 'sk-live-UNSCANNED-4242'

function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    assert.ok(error instanceof GovError)
    assert.equal(error.code, 'upstream_invalid_stream')
    assert.equal(error.status, 502)
    return error.message
  }
  assert.fail('expected upstream_invalid_stream')
}

const anthropicStart =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{}}}\n\n'

describe('upstream_invalid_stream messages quote no upstream bytes', () => {
  const cases: [string, () => unknown][] = [
    ['OpenAI data that is not JSON', () => new OpenAiAdapter().reassembleStream(`data: {"x":"${MARKER}\n\n`)],
    [
      'Anthropic data that is not JSON',
      () => new AnthropicAdapter().reassembleStream(`${anthropicStart}data: {"x":"${MARKER}\n\n`),
    ],
    [
      'an Anthropic event type before message_start',
      () => new AnthropicAdapter().reassembleStream(`data: {"type":"${MARKER}"}\n\n`),
    ],
    [
      'an Anthropic delta naming a block by a string',
      () =>
        new AnthropicAdapter().reassembleStream(
          `${anthropicStart}data: {"type":"content_block_delta","index":"${MARKER}","delta":{"type":"text_delta","text":"x"}}\n\n`,
        ),
    ],
  ]
  for (const [name, run] of cases) {
    it(name, () => {
      assert.ok(!messageOf(run).includes(MARKER))
    })
  }
})
