import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DEFAULT_CONTENT_SETTINGS } from '../../src/storage/store.js'
import { startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

describe('pipeline content settings through the admin API', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('defaults to media pass, unknown blocks refuse', async () => {
    const res = await t.admin('POST', '/pipelines', { pipeline_id: 'c-default', preset: 'standard' })
    assert.equal(res.status, 201)
    assert.deepEqual(res.body.content, DEFAULT_CONTENT_SETTINGS)
  })

  it('stores what create sets, fills the rest, and shows it on get and list', async () => {
    const res = await t.admin('POST', '/pipelines', {
      pipeline_id: 'c-strict',
      preset: 'standard',
      content: { media: 'refuse' },
    })
    assert.equal(res.status, 201)
    const got = await t.admin('GET', '/pipelines/c-strict')
    assert.deepEqual(got.body.content, { media: 'refuse', unknown_blocks: 'refuse' })
    const list = await t.admin('GET', '/pipelines')
    const listed = list.body.pipelines.find((p: { pipeline_id: string }) => p.pipeline_id === 'c-strict')
    assert.deepEqual(listed.content, { media: 'refuse', unknown_blocks: 'refuse' })
  })

  it('update replaces the settings; import reads them from YAML', async () => {
    const put = await t.admin('PUT', '/pipelines/c-strict', {
      preset: 'standard',
      content: { unknown_blocks: 'pass' },
    })
    assert.equal(put.status, 200)
    assert.deepEqual(put.body.content, { media: 'pass', unknown_blocks: 'pass' })
    const yaml =
      'pipeline:\n  pipeline_id: c-yaml\n  preset: standard\n  content:\n    media: refuse\n    unknown_blocks: pass\n'
    const imported = await t.admin('POST', '/pipelines/import', yaml, { contentType: 'application/yaml' })
    assert.equal(imported.status, 201)
    assert.deepEqual(imported.body.content, { media: 'refuse', unknown_blocks: 'pass' })
  })

  it('refuses values it does not know with 400 invalid_request', async () => {
    for (const content of [{ media: 'scan' }, { unknown_blocks: true }, { other: 'x' }, 'pass']) {
      const res = await t.admin('POST', '/pipelines', { pipeline_id: 'c-bad', preset: 'standard', content })
      assert.equal(res.status, 400, JSON.stringify(content))
      assert.equal(res.body.error.code, 'invalid_request')
    }
  })
})
