/**
 * Three gateway processes (`gov serve`) on one PostgreSQL and one Redis: calls
 * spread over the three, and every process then answers the same
 * `/health/overview` (scores, counters, last call) and the same
 * `gov_active_agents`, because call activity lives in Redis.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  chat,
  http,
  onlySteps as only,
  type ProcessCluster,
  skipWithoutCluster as skip,
  startProcessCluster,
} from './helpers/process-cluster.js'

const RUN = randomUUID().slice(0, 8)

interface OverviewRow {
  agent_id: string
  score: number
  calls: number
  blocked: number
  errors: number
  flagged: number
  last_seen: string | null
}

describe('overview and active agents shared by three gateway processes', { skip }, () => {
  let cluster: ProcessCluster
  const url = (i: number) => cluster.url(i)
  const agent = (name: string) => `ov-${name}-${RUN}`
  const keys: Record<string, string> = {}

  before(async () => {
    cluster = await startProcessCluster({
      name: 'gov_overview',
      // Its own key space: gov_active_agents then counts this run's agents only.
      env: { GOV_REDIS_PREFIX: `gov-ov-${RUN}:` },
    })
    const pipelines: Record<string, Record<string, unknown>> = {
      block: only({ detect_pii: { action: 'block', entities: false } }),
      flag: only({ detect_pii: { action: 'mask', entities: false } }),
      plain: only({}),
      idle: only({}),
    }
    for (const [name, overrides] of Object.entries(pipelines))
      keys[name] = await cluster.createAgent(agent(name), agent(name), overrides)
  })

  after(() => cluster?.stop())

  async function overview(i: number): Promise<OverviewRow[]> {
    const res = await http(`${url(i)}/health/overview`, 'GET', undefined, cluster.admin)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return (res.body.agents as OverviewRow[]).filter((a) => a.agent_id.endsWith(RUN))
  }

  async function activeAgents(i: number): Promise<number> {
    const res = await fetch(`${url(i)}/metrics`, { headers: { authorization: `Bearer ${cluster.admin}` } })
    const text = await res.text()
    const line = /^gov_active_agents (\d+)$/m.exec(text)
    assert.ok(line, 'gov_active_agents is exposed')
    return Number(line[1])
  }

  it('answers the same overview and gov_active_agents on every process', async () => {
    const statuses: Record<string, number[]> = { block: [], flag: [], plain: [] }
    const bodies: unknown[] = []
    const send = async (i: number, text: string, key: string) => {
      const res = await http(`${url(i)}/v1/chat/completions`, 'POST', chat(text), key)
      if (res.status !== 200) bodies.push(res.body)
      return res.status
    }
    for (let i = 0; i < 3; i++) {
      const email = `call ${i}: write to ann.lee${i}@example.org`
      statuses.block?.push(await send(i, email, keys.block as string))
      statuses.flag?.push(await send((i + 1) % 3, email, keys.flag as string))
      if (i === 2)
        cluster.mock.enqueue({ status: 500, json: { error: { message: 'down', type: 'server_error' } } })
      statuses.plain?.push(await send((i + 2) % 3, `hello ${i}`, keys.plain as string))
    }
    assert.deepEqual(
      statuses,
      { block: [403, 403, 403], flag: [200, 200, 200], plain: [200, 200, 500] },
      JSON.stringify(bodies),
    )

    // Each process writes its counts within a second: wait until the three views agree.
    const deadline = Date.now() + 10_000
    let views: OverviewRow[][] = []
    let active: number[] = []
    for (;;) {
      views = await Promise.all([0, 1, 2].map(overview))
      active = await Promise.all([0, 1, 2].map(activeAgents))
      const calls = views.map((v) => v.reduce((sum, a) => sum + a.calls, 0))
      if (calls.every((n) => n === 9) || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    assert.deepEqual(views[1], views[0], 'process 1 answers as process 0')
    assert.deepEqual(views[2], views[0], 'process 2 answers as process 0')
    const byId = Object.fromEntries((views[0] ?? []).map((a) => [a.agent_id, a]))
    const counts = (name: string) => {
      const a = byId[agent(name)] as OverviewRow
      return { score: a.score, calls: a.calls, blocked: a.blocked, errors: a.errors, flagged: a.flagged }
    }
    // 100 − 60·3/3; 100 − 15·3/3; 100 − 25·1/3 rounded.
    assert.deepEqual(counts('block'), { score: 40, calls: 3, blocked: 3, errors: 0, flagged: 0 })
    assert.deepEqual(counts('flag'), { score: 85, calls: 3, blocked: 0, errors: 0, flagged: 3 })
    assert.deepEqual(counts('plain'), { score: 92, calls: 3, blocked: 0, errors: 1, flagged: 0 })
    assert.deepEqual(counts('idle'), { score: 100, calls: 0, blocked: 0, errors: 0, flagged: 0 })
    assert.equal(byId[agent('idle')]?.last_seen, null)
    assert.ok(byId[agent('plain')]?.last_seen, 'the last call time is shared too')
    // Worst first, on every process.
    assert.deepEqual(
      views[0]?.map((a) => a.agent_id),
      [agent('block'), agent('flag'), agent('plain'), agent('idle')],
    )
    assert.deepEqual(active, [3, 3, 3], 'three agents called in the last 5 minutes, seen by every process')

    // GET /agents/{id} on any process shows the shared health as well.
    const one = await http(`${url(2)}/agents/${agent('block')}`, 'GET', undefined, cluster.admin)
    assert.equal(one.body.health.blocked, 3)

    // Deleting an agent on one process drops its activity for all.
    assert.equal(
      (await http(`${url(0)}/agents/${agent('plain')}`, 'DELETE', undefined, cluster.admin)).status,
      204,
    )
    assert.deepEqual(await Promise.all([0, 1, 2].map(activeAgents)), [2, 2, 2])
  })
})
