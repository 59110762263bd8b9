import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type Finding, GovError } from '@gov/core'
import { AnthropicAdapter } from '../../src/adapters/anthropic-adapter.js'
import { OpenAiAdapter } from '../../src/adapters/openai-adapter.js'
import { applyContentPolicy, UNSCANNED_CONTENT } from '../../src/gateway/content-policy.js'

const PIXELS = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'

function anthropicWith(content: unknown[]) {
  return new AnthropicAdapter().parseRequest({
    model: 'claude-sonnet-4-6',
    max_tokens: 16,
    messages: [{ role: 'user', content }],
  })
}

const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXELS } }
const unknown = { type: 'hologram', payload: 'beam me up' }

function run(
  exchange: ReturnType<typeof anthropicWith>,
  policy?: Parameters<typeof applyContentPolicy>[1],
  enforce = true,
) {
  const findings: Finding[] = []
  let error: unknown
  try {
    applyContentPolicy(exchange, policy, (f) => findings.push(f), enforce)
  } catch (e) {
    error = e
  }
  return { findings, error }
}

function assertCode(error: unknown, code: string, status: number) {
  assert.ok(error instanceof GovError, `expected a GovError, got ${String(error)}`)
  assert.equal(error.code, code)
  assert.equal(error.status, status)
}

describe('applyContentPolicy', () => {
  it('passes media by default with one internal unscanned_content finding each, without the content', () => {
    const { findings, error } = run(anthropicWith([image, { type: 'text', text: 'what is this?' }, image]))
    assert.equal(error, undefined)
    assert.equal(findings.length, 2)
    for (const finding of findings) {
      assert.equal(finding.type, UNSCANNED_CONTENT)
      assert.equal(finding.level, 'internal')
      assert.equal(finding.phase, 'request')
      assert.ok(!JSON.stringify(finding).includes(PIXELS))
    }
    assert.deepEqual(findings[0].detail, {
      path: 'messages[0].content[0]',
      kind: 'media',
      content_type: 'image',
    })
  })

  it('refuses media with 403 unscanned_content when the pipeline says refuse, after reporting it', () => {
    const { findings, error } = run(anthropicWith([image]), { media: 'refuse' })
    assertCode(error, 'unscanned_content', 403)
    assert.equal(findings.length, 1)
  })

  it('refuses an unknown block with 400 unsupported_content by default', () => {
    const { error } = run(anthropicWith([{ type: 'text', text: 'hi' }, unknown]))
    assertCode(error, 'unsupported_content', 400)
    assert.equal((error as GovError).details?.path, 'messages[0].content[1]')
  })

  it('passes an unknown block when the pipeline opts in, and still reports it', () => {
    const { findings, error } = run(anthropicWith([unknown]), { unknown_blocks: 'pass' })
    assert.equal(error, undefined)
    assert.equal(findings[0].detail?.kind, 'unknown')
  })

  it('refuses nothing in observe mode but reports the same findings', () => {
    const { findings, error } = run(anthropicWith([image, unknown]), { media: 'refuse' }, false)
    assert.equal(error, undefined)
    assert.equal(findings.length, 2)
  })

  it('does nothing for a request with only text', () => {
    const exchange = new OpenAiAdapter().parseRequest({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    })
    const { findings, error } = run(exchange, { media: 'refuse' })
    assert.equal(error, undefined)
    assert.deepEqual(findings, [])
  })

  it('applies to OpenAI media and unknown parts alike', () => {
    const exchange = new OpenAiAdapter().parseRequest({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] },
      ],
    })
    assertCode(run(exchange, { media: 'refuse' }).error, 'unscanned_content', 403)
  })
})
