import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { chatBody, startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '@gov/host/testing'
import { runCli } from './helpers/run-cli.js'

describe('gov sessions show|clear against a real gateway', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startTestGateway()
  })
  after(async () => {
    await gw.close()
  })
  const gov = (...args: string[]) => runCli([...args, '--url', gw.url], { GOV_ADMIN_API_KEY: TEST_ADMIN_KEY })

  it('shows and clears the session of one agent', async () => {
    const key = await gw.createAgent('sess-bot')
    const call = await gw.call('/v1/chat/completions', chatBody('hello'), {
      key,
      headers: { 'x-gov-session': 'conv/42#a' },
    })
    assert.equal(call.status, 200)
    const shown = await gov('sessions', 'show', 'sess-bot', 'conv/42#a')
    assert.equal(shown.code, 0, shown.stderr)
    const view = JSON.parse(shown.stdout)
    assert.deepEqual(
      [view.agent_id, view.session_id],
      ['sess-bot', 'conv/42#a'],
      'ids survive the URL encoding',
    )
    assert.equal(typeof view.steps, 'object')
    const cleared = await gov('sessions', 'clear', 'sess-bot', 'conv/42#a')
    assert.equal(cleared.code, 0, cleared.stderr)
    assert.match(cleared.stdout, /^cleared session conv\/42#a of sess-bot$/m)
    const unknownAgent = await gov('sessions', 'show', 'no-such-agent', 'conv/42#a')
    assert.equal(unknownAgent.code, 1)
    assert.match(unknownAgent.stderr, /^gov: \S+: .*\(HTTP 404\)$/m)
  })
})
