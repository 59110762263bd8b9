import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PhaseClock } from '../../src/gateway/phase-clock.js'
import { chatBody, onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

/** `gov_phase_duration_seconds_count` and `_sum` by phase, from the exposition text. */
function phases(text: string): Map<string, { count: number; sum: number }> {
  const out = new Map<string, { count: number; sum: number }>()
  for (const m of text.matchAll(/^gov_phase_duration_seconds_(count|sum)\{phase="(\w+)"\} (\S+)$/gm)) {
    const entry = out.get(m[2]!) ?? { count: 0, sum: 0 }
    entry[m[1] as 'count' | 'sum'] = Number(m[3])
    out.set(m[2]!, entry)
  }
  return out
}

describe('gov_phase_duration_seconds', () => {
  let t: TestGateway
  let key: string
  const scrape = async () => phases((await t.admin('GET', '/metrics')).text)

  before(async () => {
    t = await startTestGateway()
    await t.createPipeline('ph', 'standard', onlySteps('standard', { fx_pass: {}, fx_block: {} }))
    key = await t.createAgent('agent-phases', 'ph')
  })
  after(() => t.close())

  it('observes every phase of an allowed call once, and only the phases a refused call reached', async () => {
    const before = await scrape()
    const count = (m: Map<string, { count: number }>, p: string) => m.get(p)?.count ?? 0
    assert.equal((await t.call('/v1/chat/completions', chatBody('hello phases'), { key })).status, 200)
    const allowed = await scrape()
    const all = ['auth', 'policy', 'parse', 'route', 'request_steps', 'upstream', 'response_steps']
    for (const p of [...all, 'token', 'audit', 'write'])
      assert.equal(count(allowed, p) - count(before, p), 1, `phase ${p}`)
    const walked = [...allowed.values()].reduce((s, e) => s + e.sum, 0)
    assert.ok(walked > 0, 'phase times add up to more than zero')

    // fx_block refuses in the request phase: no upstream, response hooks or token.
    const refused = await t.call('/v1/chat/completions', chatBody('this is forbidden'), { key })
    assert.equal(refused.status, 403)
    const after = await scrape()
    for (const p of ['auth', 'policy', 'parse', 'route', 'request_steps', 'audit', 'write'])
      assert.equal(count(after, p) - count(allowed, p), 1, `phase ${p} of the refused call`)
    for (const p of ['upstream', 'response_steps', 'token'])
      assert.equal(count(after, p) - count(allowed, p), 0, `phase ${p} not reached`)
  })

  it('adds the time of a phase entered twice and observes each phase once', () => {
    const seen: [number, number][] = []
    const timers = Array.from({ length: 10 }, (_, i) => ({ observe: (s: number) => seen.push([i, s]) }))
    const clock = new PhaseClock(timers, performance.now())
    clock.enter(2)
    const spin = (ms: number) => {
      const until = performance.now() + ms
      while (performance.now() < until) {}
    }
    spin(2)
    clock.enter(3)
    clock.enter(2)
    spin(2)
    clock.end()
    assert.deepEqual(
      seen.map(([i]) => i),
      [0, 2, 3],
    )
    assert.ok(clock.spentMs('parse') >= 4, `parse ${clock.spentMs('parse')} ms`)
    assert.ok(seen.find(([i]) => i === 2)![1] >= 0.004)
  })
})
