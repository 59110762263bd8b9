import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { LoadResult } from '../src/load-worker.js'
import { failuresOf, renderTable } from '../src/report.js'
import { ALL_TARGETS, parseRunOptions } from '../src/run-options.js'

function result(rps: number, non2xx = 0): LoadResult {
  return {
    warmup: { requests: 10, non2xx: 0, errors: 0 },
    unloaded: { requests: 10, p50: 1.5, p99: 3, non2xx: 0 },
    loaded: {
      requestsPerSecond: rps,
      total: rps * 10,
      p50: 5,
      p99: 20,
      errors: 0,
      timeouts: 0,
      non2xx,
      statusCodes: {},
    },
    distinctPrompts: 100,
  }
}

describe('bench options and report', () => {
  it('reads options and rejects unknown ones', () => {
    assert.deepEqual(parseRunOptions([]).targets, ALL_TARGETS)
    const o = parseRunOptions(['--duration', '3', '--connections', '8', '--targets', 'direct,bare'])
    assert.equal(o.duration, 3)
    assert.equal(o.connections, 8)
    assert.deepEqual(o.targets, ['direct', 'bare'])
    assert.throws(() => parseRunOptions(['--durration', '3']))
    assert.throws(() => parseRunOptions(['--targets', 'portkey']))
    assert.throws(() => parseRunOptions(['--duration', 'ten']))
  })

  it('shows gov as ratios of the bare proxy and of direct', () => {
    const table = renderTable([
      { name: 'direct', description: '', result: result(4000) },
      { name: 'bare proxy', description: '', result: result(2000) },
      { name: 'gov (standard)', description: '', result: result(1000) },
    ])
    const gov = table.split('\n').find((l) => l.startsWith('| gov'))!
    assert.match(gov, /0\.50×/)
    assert.match(gov, /0\.25×/)
  })

  it('counts non-2xx answers as failures', () => {
    assert.equal(failuresOf(result(100)), 0)
    assert.equal(failuresOf(result(100, 3)), 3)
  })
})
