/**
 * Three gateway processes (separate OS processes, `gov serve`) on one
 * PostgreSQL and one Redis: what one sets, the others enforce — taint, loop
 * counts, budgets and circuit state — and identical calls in flight on all
 * three go upstream once.
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

/** Agents, budgets and circuits live in the shared Redis beyond one run: every run names its own. */
const RUN = randomUUID().slice(0, 8)

describe('three gateway processes on one PostgreSQL and Redis', { skip }, () => {
  let cluster: ProcessCluster
  const keys: Record<string, string> = {}
  const url = (i: number) => cluster.url(i)

  before(async () => {
    cluster = await startProcessCluster({ name: 'gov_scale', env: { GOV_TOKEN_SIGNING_KEY: undefined } })
    const pipelines: Record<string, Record<string, unknown>> = {
      taint: only({ detect_pii: {}, track_taint: { sinks: { send_message: ['pii'] } } }),
      loops: only({ guard_loops: { max_tool_calls: 2 } }),
      budget: only({
        track_cost: {
          prices: { 'gpt-4o-mini': { input: 100_000, output: 100_000 } },
          budgets: { agent_daily_usd: 2.5 },
          default_output_tokens: 1,
        },
      }),
      circuit: only({ break_circuit: { failure_threshold: 2, window_s: 60, open_s: 30 } }),
      coalesce: only({ dedupe: { coalesce: true, replay: 'off' } }),
    }
    for (const [id, overrides] of Object.entries(pipelines))
      keys[id] = await cluster.createAgent(`sc-${id}-${RUN}`, `sc-${id}-agent-${RUN}`, overrides)
  })

  after(() => cluster?.stop())

  it('enforces taint set through one process on another', async () => {
    const headers = { 'x-gov-session': `taint-${randomUUID()}` }
    const first = await http(
      `${url(0)}/v1/chat/completions`,
      'POST',
      chat('my email is ann.lee@example.org'),
      keys.taint as string,
      headers,
    )
    assert.equal(first.status, 200)
    const view = await http(
      `${url(2)}/sessions/sc-taint-agent-${RUN}/${headers['x-gov-session']}`,
      'GET',
      undefined,
      cluster.admin,
    )
    assert.match(JSON.stringify(view.body), /pii/)
    const tools = [{ type: 'function', function: { name: 'send_message', parameters: { type: 'object' } } }]
    const exfil = await http(
      `${url(1)}/v1/chat/completions`,
      'POST',
      chat('[mock:tool_echo] send it on', { tools }),
      keys.taint as string,
      headers,
    )
    assert.equal(exfil.status, 403)
    assert.equal(exfil.body.error.code, 'taint_blocked')
  })

  it('shares loop counts across processes', async () => {
    const headers = { 'x-gov-session': `loops-${randomUUID()}` }
    const tools = [{ type: 'function', function: { name: 'send_message', parameters: { type: 'object' } } }]
    const statuses = []
    for (let i = 0; i < 3; i++) {
      const res = await http(
        `${url(i)}/v1/chat/completions`,
        'POST',
        chat(`[mock:tool_echo] step ${i}`, { tools }),
        keys.loops as string,
        headers,
      )
      statuses.push(res.status === 429 ? res.body.error.code : res.status)
    }
    assert.deepEqual(statuses, [200, 200, 'loop_detected'])
  })

  it('shares budgets across processes', async () => {
    const statuses = []
    for (let i = 0; i < 3; i++) {
      const res = await http(
        `${url(i)}/v1/chat/completions`,
        'POST',
        chat(`spend ${i}`),
        keys.budget as string,
      )
      statuses.push(res.status === 429 ? res.body.error.code : res.status)
    }
    assert.ok(statuses.includes('budget_exceeded'), `a budget stop on a later process: ${statuses}`)
    assert.equal(statuses[0], 200)
    const spend = await http(`${url(2)}/agents/sc-budget-agent-${RUN}/spend`, 'GET', undefined, cluster.admin)
    assert.equal(spend.status, 200, JSON.stringify(spend.body))
  })

  it('opens the circuit for every process', async () => {
    const body = chat('will fail', { model: `gpt-4o-circuit-${RUN}` })
    for (let i = 0; i < 2; i++) {
      cluster.mock.enqueue({ status: 500, json: { error: { message: 'down', type: 'server_error' } } })
      assert.equal(
        (await http(`${url(i)}/v1/chat/completions`, 'POST', body, keys.circuit as string)).status,
        500,
      )
    }
    const sent = cluster.mock.requests.length
    const open = await http(`${url(2)}/v1/chat/completions`, 'POST', body, keys.circuit as string)
    assert.equal(open.status, 503)
    assert.equal(open.body.error.code, 'circuit_open')
    assert.ok(Number(open.headers.get('retry-after')) > 0)
    assert.equal(cluster.mock.requests.length, sent, 'no upstream call while open')
  })

  it('coalesces identical calls in flight on all three into one upstream call', async () => {
    const text = `coalesce ${randomUUID()}`
    cluster.mock.enqueue({
      json: {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'shared' }, finish_reason: 'stop' }],
      },
      delayMs: 1500,
    })
    const sent = cluster.mock.requests.length
    const first = http(`${url(0)}/v1/chat/completions`, 'POST', chat(text), keys.coalesce as string)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const rest = [1, 2].map((i) =>
      http(`${url(i)}/v1/chat/completions`, 'POST', chat(text), keys.coalesce as string),
    )
    const results = await Promise.all([first, ...rest])
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200],
    )
    for (const r of results) assert.equal(r.body.choices[0].message.content, 'shared')
    assert.equal(cluster.mock.requests.length - sent, 1, 'one upstream call')
    assert.deepEqual(
      results.map((r) => r.headers.get('x-gov-dedupe')),
      [null, 'coalesced', 'coalesced'],
    )
  })
})
