import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { chatBody, startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '@gov/host/testing'
import { runCli } from './helpers/run-cli.js'

describe('gov sessions show|clear against a real gateway', () => {
  let gw: TestGateway
  let missing: string | false = false
  before(async () => {
    gw = await startTestGateway()
    const probe = await gw.admin('GET', '/sessions/probe-agent/probe-session')
    // The admin API gained /sessions in the same release; an older gateway has no such route.
    if (probe.status === 404 && /^no route/.test(probe.body?.error?.message ?? '')) {
      missing = 'this gateway has no GET /sessions/{agent_id}/{session_id} route'
    }
  })
  after(async () => {
    await gw.close()
  })
  const gov = (...args: string[]) => runCli([...args, '--url', gw.url], { GOV_ADMIN_API_KEY: TEST_ADMIN_KEY })

  it('shows and clears the session of one agent', async (t) => {
    if (missing) return t.skip(missing)
    const key = await gw.createAgent('sess-bot')
    const call = await gw.call('/v1/chat/completions', chatBody('hello'), {
      key,
      headers: { 'x-gov-session': 'conv 1/2' },
    })
    assert.equal(call.status, 200)
    const shown = await gov('sessions', 'show', 'sess-bot', 'conv 1/2')
    assert.equal(shown.code, 0, shown.stderr)
    assert.equal(typeof JSON.parse(shown.stdout), 'object')
    const cleared = await gov('sessions', 'clear', 'sess-bot', 'conv 1/2')
    assert.equal(cleared.code, 0, cleared.stderr)
    assert.match(cleared.stdout, /^cleared session conv 1\/2 of sess-bot$/m)
    const unknownAgent = await gov('sessions', 'show', 'no-such-agent', 'conv 1/2')
    assert.equal(unknownAgent.code, 1)
    assert.match(unknownAgent.stderr, /^gov: \S+: .*\(HTTP 404\)$/m)
  })
})
