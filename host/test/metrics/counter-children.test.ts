/**
 * The buffered label children of gov's hot-path counters
 * (`gov_http_requests_total`, `gov_capability_tokens_total`): every `inc` is
 * in the exposition and in `get()`, as with prom-client's own children.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Counter, Registry } from 'prom-client'
import { GovMetrics } from '../../src/metrics/metrics.js'

describe('GovMetrics counter children', () => {
  it('render what prom-client renders for the same increments, at every read', async () => {
    const metrics = new GovMetrics()
    const registry = new Registry()
    const reference = new Counter({
      name: 'gov_http_requests_total',
      help: 'HTTP requests, by method, route path and status',
      labelNames: ['method', 'path', 'status'],
      registers: [registry],
    })
    const series = async (text: string) =>
      text.split('\n').filter((l) => l.startsWith('gov_http_requests_total'))
    const calls: [string, string, string][] = [
      ['POST', '/v1/chat/completions', '200'],
      ['POST', '/v1/chat/completions', '200'],
      ['GET', '/health', '200'],
      ['POST', '/v1/chat/completions', '403'],
    ]
    for (let round = 0; round < 3; round++) {
      for (const [method, path, status] of calls) {
        metrics.httpRequest(method, path, status).inc()
        reference.labels(method, path, status).inc()
      }
      // Read after each round: counts buffered since the last read join the counter.
      assert.deepEqual(
        await series(await metrics.registry.metrics()),
        await series(await registry.metrics()),
        `round ${round}`,
      )
    }
  })

  it('count through get() too, with values other than 1, and refuse what prom-client refuses', async () => {
    const metrics = new GovMetrics()
    const minted = metrics.tokenResult('minted')
    assert.equal(metrics.tokenResult('minted'), minted, 'one child per label set')
    minted.inc()
    minted.inc(2)
    metrics.tokenResult('denied').inc()
    const { values } = await metrics.capabilityTokens.get()
    const byResult = Object.fromEntries(values.map((v) => [v.labels.result, v.value]))
    assert.deepEqual(byResult, { minted: 3, denied: 1 })
    minted.inc()
    const again = await metrics.capabilityTokens.get()
    assert.equal(again.values.find((v) => v.labels.result === 'minted')?.value, 4)
    assert.throws(() => minted.inc(-1), /decrease/)
    assert.throws(() => minted.inc(Number.NaN), /not a valid number/)
  })
})
