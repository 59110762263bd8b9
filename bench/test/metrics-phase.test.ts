import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { labelValues, parseMetrics, total } from '../src/metrics-text.js'
import { phaseRows, renderPhaseTable } from '../src/phase-table.js'

function exposition(scale: number): string {
  return [
    '# HELP gov_step_duration_seconds Time spent in one step hook',
    '# TYPE gov_step_duration_seconds histogram',
    `gov_step_duration_seconds_bucket{le="0.001",step="detect_pii",phase="request"} ${10 * scale}`,
    `gov_step_duration_seconds_sum{step="detect_pii",phase="request"} ${0.002 * scale}`,
    `gov_step_duration_seconds_count{step="detect_pii",phase="request"} ${10 * scale}`,
    `gov_step_duration_seconds_sum{step="dedupe",phase="upstream"} ${0.001 * scale}`,
    `gov_step_duration_seconds_count{step="dedupe",phase="upstream"} ${10 * scale}`,
    `gov_upstream_duration_seconds_sum{provider="openai",status="200"} ${0.005 * scale}`,
    `gov_upstream_duration_seconds_count{provider="openai",status="200"} ${10 * scale}`,
    `gov_request_duration_seconds_sum{vendor="openai",outcome="allowed"} ${0.01 * scale}`,
    `gov_request_duration_seconds_count{vendor="openai",outcome="allowed"} ${10 * scale}`,
    `gov_process_process_cpu_seconds_total ${0.004 * scale}`,
    'gov_weird{note="a \\"quoted\\" value"} +Inf',
    'gov_process_nodejs_eventloop_lag_mean_seconds Nan',
    '',
  ].join('\n')
}

describe('metrics text and the phase table', () => {
  it('parses samples with labels, escapes and +Inf', () => {
    const samples = parseMetrics(exposition(1))
    assert.equal(total(samples, 'gov_step_duration_seconds_count'), 20)
    assert.equal(total(samples, 'gov_step_duration_seconds_count', { phase: 'request' }), 10)
    assert.deepEqual(labelValues(samples, 'gov_step_duration_seconds_count', 'step').sort(), [
      'dedupe',
      'detect_pii',
    ])
    const weird = samples.find((s) => s.name === 'gov_weird')!
    assert.equal(weird.labels.note, 'a "quoted" value')
    assert.equal(weird.value, Number.POSITIVE_INFINITY)
    assert.ok(Number.isNaN(total(samples, 'gov_process_nodejs_eventloop_lag_mean_seconds')))
  })

  it('refuses a line that is not a sample', () => {
    assert.throws(() => parseMetrics('gov_x{a="b"}\n'), /not a metrics sample/)
    assert.throws(() => parseMetrics('gov_x one\n'), /not a number/)
  })

  it('turns two scrapes into µs per hook and per call, with the unseparated rest', () => {
    // Between the scrapes: 20 calls, 40 ms of pii, 20 ms of dedupe, 100 ms upstream, 200 ms whole, 80 ms CPU.
    const rows = phaseRows(parseMetrics(exposition(1)), parseMetrics(exposition(3)))
    const row = (what: string) => rows.find((r) => r.what.startsWith(what))!
    assert.equal(row('request: detect_pii').count, 20)
    assert.ok(Math.abs(row('request: detect_pii').perInvocation - 200) < 1e-6)
    assert.ok(Math.abs(row('upstream: dedupe').perCall - 100) < 1e-6)
    assert.ok(Math.abs(row('upstream (provider').perCall - 500) < 1e-6)
    assert.ok(Math.abs(row('rest').perCall - (1000 - 200 - 100 - 500)) < 1e-6)
    assert.equal(row('process CPU').kind, 'cpu')
    assert.ok(Math.abs(row('process CPU').perCall - 400) < 1e-6)
    assert.match(renderPhaseTable(rows), /\| request: detect_pii +\| wall \| 20 +\| 200\.0/)
  })

  it('splits the rest into the walk phases when gov exports gov_phase_duration_seconds', () => {
    const withPhases = (scale: number) =>
      [
        exposition(scale),
        ...[
          ['auth', 0.0005],
          ['policy', 0.0002],
          ['parse', 0.0008],
          ['route', 0.0001],
          ['request_steps', 0.003],
          ['upstream', 0.0061],
          ['response_steps', 0.0001],
          ['token', 0.0004],
          ['audit', 0.0006],
          ['write', 0.0003],
        ].flatMap(([phase, seconds]) => [
          `gov_phase_duration_seconds_sum{phase="${phase}"} ${Number(seconds) * scale}`,
          `gov_phase_duration_seconds_count{phase="${phase}"} ${10 * scale}`,
        ]),
        '',
      ].join('\n')
    const rows = phaseRows(parseMetrics(withPhases(1)), parseMetrics(withPhases(3)))
    const row = (what: string) => rows.find((r) => r.what.startsWith(what))
    assert.equal(row('rest'), undefined)
    // 20 calls: auth 1 ms over the interval → 50 µs per call.
    assert.ok(Math.abs(row('walk: auth')!.perCall - 50) < 1e-6)
    assert.equal(row('walk: audit')!.count, 20)
    // request_steps 6 ms, of which detect_pii's hook 4 ms → 100 µs per call besides the hooks.
    assert.ok(Math.abs(row('request_steps: besides')!.perCall - 100) < 1e-6)
    // upstream phase 12.2 ms − provider 10 ms − dedupe's outcome hook 2 ms → 10 µs per call.
    assert.ok(Math.abs(row('upstream: besides')!.perCall - 10) < 1e-6)
    assert.ok(Math.abs(row('walk, all phases')!.perCall - 1210) < 1e-6)
  })

  it('gives no rows when no call finished between the scrapes', () => {
    const same = parseMetrics(exposition(1))
    assert.deepEqual(phaseRows(same, same), [])
  })
})
