import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Histogram, Registry } from 'prom-client'
import { LeanHistogram } from '../../src/metrics/lean-histogram.js'

/** The sample lines of an exposition, labels sorted, so label order does not matter. */
function samples(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.replace(/\{([^}]*)\}/, (_, inner: string) => `{${inner.split(',').sort().join(',')}}`))
    .sort()
}

describe('LeanHistogram', () => {
  it("renders the same series as prom-client's Histogram for the same observations", async () => {
    const buckets = [0.001, 0.01, 0.1]
    const observations: [string, string, number][] = [
      ['pii', 'request', 0.0005],
      ['pii', 'request', 0.001],
      ['pii', 'request', 0.05],
      ['pii', 'response', 2],
      ['dedupe', 'upstream', 0.002],
    ]
    const leanRegistry = new Registry()
    const lean = new LeanHistogram('gov_x_seconds', 'help', ['step', 'phase'], buckets, leanRegistry)
    const promRegistry = new Registry()
    const prom = new Histogram({
      name: 'gov_x_seconds',
      help: 'help',
      labelNames: ['step', 'phase'],
      buckets,
      registers: [promRegistry],
    })
    for (const [step, phase, v] of observations) {
      lean.child(step, phase).observe(v)
      prom.observe({ step, phase }, v)
    }
    assert.deepEqual(samples(await leanRegistry.metrics()), samples(await promRegistry.metrics()))
    assert.ok(
      samples(await leanRegistry.metrics()).includes('gov_x_seconds_count{phase="request",step="pii"} 3'),
    )
  })

  it('refuses a value that is not a number, and reuses one child per label set', () => {
    const h = new LeanHistogram('gov_y_seconds', 'help', ['phase'], [1], new Registry())
    assert.throws(() => h.child('a').observe(Number.NaN), /not a valid number/)
    assert.equal(h.child('a'), h.child('a'))
  })
})
