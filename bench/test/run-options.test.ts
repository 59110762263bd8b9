import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { LoadRun } from '../src/load-worker.js'
import {
  cpuPerCall,
  type Measurement,
  noiseFlags,
  renderCpuTable,
  renderRoundsTable,
  renderThroughputTable,
  renderUnloadedTable,
  runFailures,
  summarize,
} from '../src/report.js'
import { ALL_TARGETS, parseRunOptions } from '../src/run-options.js'

function run(rps: number, non2xx = 0): LoadRun {
  return {
    requests: rps * 3,
    sent: rps * 3 + 32,
    seconds: 3,
    requestsPerSecond: rps,
    p50: 5,
    p99: 20,
    errors: 0,
    timeouts: 0,
    non2xx,
    statusCodes: { 200: rps * 3 - non2xx },
  }
}

/** A run of 3 s on a core the target and mock had to themselves: `cpuUs` per call for the target, 100 µs for the mock; the generator half busy. */
function measured(
  target: string,
  round: number,
  rps: number,
  cpuUs: number,
  extra: Partial<Measurement> = {},
) {
  const calls = rps * 3
  const cpu = (cpuUs * calls) / 1e6
  const mockCpu = target === 'direct' ? undefined : (100 * calls) / 1e6
  const m: Measurement = {
    target,
    round,
    run: run(rps),
    wallSeconds: 3,
    cpu,
    ...(mockCpu === undefined ? {} : { mockCpu }),
    loadCpu: 1.5,
    core: { busy: cpu + (mockCpu ?? 0), idle: 0, steal: 0 },
    ...extra,
  }
  return m
}

describe('bench options', () => {
  it('reads options and rejects unknown ones', () => {
    assert.deepEqual(parseRunOptions([]).targets, ALL_TARGETS)
    const o = parseRunOptions(['--connections', '8', '--targets', 'direct,bare'])
    assert.equal(o.connections, 8)
    assert.deepEqual(o.targets, ['direct', 'bare'])
    assert.throws(() => parseRunOptions(['--durration', '3']))
    assert.throws(() => parseRunOptions(['--targets', 'portkey']))
    assert.throws(() => parseRunOptions(['--duration', 'ten']))
    assert.throws(() => parseRunOptions(['--rounds', '0']))
    assert.throws(() => parseRunOptions(['--rounds', '']))
  })

  it('splits --duration (seconds per target in all) into the rounds, in either order', () => {
    const defaults = parseRunOptions([])
    assert.equal(defaults.duration, defaults.rounds * defaults.roundSeconds)
    for (const argv of [
      ['--duration', '20', '--rounds', '4'],
      ['--rounds', '4', '--duration', '20'],
    ]) {
      const o = parseRunOptions(argv)
      assert.equal(o.rounds, 4)
      assert.equal(o.roundSeconds, 5)
      assert.equal(o.duration, 20)
    }
    const r = parseRunOptions(['--rounds', '8', '--round-seconds', '2', '--round-warmup', '0'])
    assert.equal(r.duration, 16)
    assert.equal(r.roundWarmup, 0)
    assert.throws(() => parseRunOptions(['--duration', '10', '--round-seconds', '2']), /exclude/)
    const w = parseRunOptions(['--warmup', '1', '--warmup-calls', '500', '--warmup-max', '4'])
    assert.deepEqual([w.warmup, w.warmupCalls, w.warmupMax], [1, 500, 4])
    assert.throws(() => parseRunOptions(['--warmup-calls', '-1']))
  })
})

describe('bench report', () => {
  // The machine halves its speed in round 2: req/s of both halves, CPU per call stays.
  const sequence = [
    measured('direct', 1, 8000, 100),
    measured('bare proxy', 1, 2000, 150),
    measured('gov (standard)', 1, 1000, 400),
    measured('direct', 2, 4000, 100),
    measured('bare proxy', 2, 1000, 150),
    measured('gov (standard)', 2, 500, 400),
    measured('direct', 3, 8000, 100),
    measured('bare proxy', 3, 2000, 150),
    measured('gov (standard)', 3, 1000, 400),
  ]

  it('pairs each run with the bare proxy around it and gives the median ratio and its range', () => {
    const gov = summarize(sequence).find((s) => s.name === 'gov (standard)')!
    // Round 1: 1000 / mean(2000, 1000); round 2: 500 / mean(1000, 2000); round 3: 1000 / 2000.
    assert.equal(gov.rpsVsBare.n, 3)
    assert.ok(Math.abs(gov.rpsVsBare.min - 1 / 3) < 1e-9)
    assert.ok(Math.abs(gov.rpsVsBare.median - 0.5) < 1e-9)
    assert.ok(Math.abs(gov.rpsVsBare.max - 2 / 3) < 1e-9)
    assert.equal(gov.rps.median, 1000)
    // CPU per call did not move: every paired ratio is 400 / 150, and the core (+ mock 100 µs) implies 250 / 500.
    assert.ok(Math.abs(gov.cpu.median - 400) < 1e-6)
    assert.ok(Math.abs(gov.cpuVsBare.min - 400 / 150) < 1e-9)
    assert.ok(Math.abs(gov.cpuVsBare.max - 400 / 150) < 1e-9)
    assert.ok(Math.abs(gov.cpuImpliedVsBare.median - 0.5) < 1e-9)
    assert.equal(gov.failures, 0)
    assert.equal(gov.flaggedRounds, 0)
  })

  it('prints the paired ratios with their ranges', () => {
    const summaries = summarize(sequence)
    const throughput = renderThroughputTable(summaries)
    const gov = throughput.split('\n').find((l) => l.startsWith('| gov'))!
    assert.match(gov, /0\.50× \(0\.33–0\.67\)/)
    const cpu = renderCpuTable(summaries)
      .split('\n')
      .find((l) => l.startsWith('| gov'))!
    assert.match(cpu, /2\.67× \(2\.67–2\.67\)/)
    assert.match(cpu, /0\.50× \(0\.50–0\.50\)/)
    const rounds = renderRoundsTable(sequence).split('\n')
    assert.equal(rounds.length, 2 + sequence.length)
    assert.match(rounds[4]!, /\| 1 +\| gov \(standard\) +\| 1000 +\| 0\.67×/)
  })

  it('gives unloaded latency over direct with its sign', () => {
    const unloaded = (p50: number) => ({ requests: 10, p50, p99: p50 * 2, non2xx: 0 })
    const warmup = { requests: 1, non2xx: 0, errors: 0 }
    const table = renderUnloadedTable([
      { name: 'direct', description: '', warmup, unloaded: unloaded(1) },
      { name: 'bare proxy', description: '', warmup, unloaded: unloaded(0.9) },
      { name: 'gov (standard)', description: '', warmup, unloaded: unloaded(2.25) },
    ]).split('\n')
    assert.match(table[3]!, /\| -0\.100 +\|$/)
    assert.match(table[4]!, /\| \+1\.250 +\|$/)
  })

  it('gives CPU per call in µs from the run', () => {
    assert.ok(Math.abs(cpuPerCall(measured('bare proxy', 1, 2000, 150)) - 150) < 1e-9)
    assert.ok(
      Number.isNaN(cpuPerCall({ ...measured('bare proxy', 1, 2000, 150), cpu: undefined } as Measurement)),
    )
  })

  it('flags runs where something besides the target set the pace', () => {
    assert.deepEqual(noiseFlags(measured('bare proxy', 1, 2000, 150)), [])
    const busyGenerator = noiseFlags(measured('direct', 1, 8000, 100, { loadCpu: 2.9 }))
    assert.equal(busyGenerator.length, 1)
    assert.match(busyGenerator[0]!, /load generator saturated \(97 %/)
    // 2000 req/s × 3 s × 250 µs = 1.5 s of the core is ours; 1.2 s went to others, 0.3 s stolen.
    const crowded = noiseFlags(
      measured('bare proxy', 1, 2000, 150, { core: { busy: 2.7, idle: 0, steal: 0.3 } }),
    )
    assert.deepEqual(crowded, ['others took 40 % of core', 'steal 10 %'])
    const idle = noiseFlags(
      measured('gov (standard)', 1, 1000, 400, { core: { busy: 1.5, idle: 1.5, steal: 0 } }),
    )
    assert.deepEqual(idle, ['server core 50 % idle'])
    const failing = { ...measured('gov (standard)', 1, 1000, 400), run: run(1000, 7) }
    assert.equal(runFailures(failing.run), 7)
    assert.deepEqual(noiseFlags(failing), ['7 failed requests'])
    assert.equal(summarize([failing])[0]!.failures, 7)
  })
})
