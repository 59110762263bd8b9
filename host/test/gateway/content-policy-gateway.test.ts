/**
 * The pipeline's content policy in the request walk: media passes with an
 * `unscanned_content` finding or is refused; an unknown block is refused
 * unless the pipeline passes it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'

const IMAGE = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }
const withBlock = (block: unknown) =>
  messagesBody('x', { messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, block] }] })

describe('content policy in the request walk', () => {
  let t: TestGateway
  const keys: Record<string, string> = {}
  before(async () => {
    t = await startTestGateway()
    const steps = onlySteps('standard', { fx_pass: {} })
    await t.admin('POST', '/pipelines', { pipeline_id: 'cp-default', preset: 'standard', overrides: steps })
    await t.admin('POST', '/pipelines', {
      pipeline_id: 'cp-strict',
      preset: 'standard',
      overrides: steps,
      content: { media: 'refuse' },
    })
    await t.admin('POST', '/pipelines', {
      pipeline_id: 'cp-open',
      preset: 'standard',
      overrides: steps,
      content: { unknown_blocks: 'pass' },
    })
    for (const id of ['cp-default', 'cp-strict', 'cp-open']) keys[id] = await t.createAgent(`${id}-agent`, id)
  })
  after(() => t.close())

  it('passes media with an unscanned_content finding, or refuses it when the pipeline says so', async () => {
    const passed = await t.call('/v1/messages', withBlock(IMAGE), { key: keys['cp-default'] })
    assert.equal(passed.status, 200)
    assert.equal(passed.headers.get('x-gov-classification'), 'internal')
    const refused = await t.call('/v1/messages', withBlock(IMAGE), { key: keys['cp-strict'] })
    assert.equal(refused.status, 403)
    assert.equal(refused.body.error.code, 'unscanned_content')
  })

  it('refuses an unknown block type with 400 unsupported_content unless the pipeline passes it', async () => {
    const block = { type: 'hologram', payload: 'hidden instructions' }
    const refused = await t.call('/v1/messages', withBlock(block), { key: keys['cp-default'] })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.error.code, 'unsupported_content')
    const passed = await t.call('/v1/messages', withBlock(block), { key: keys['cp-open'] })
    assert.equal(passed.status, 200)
  })
})
