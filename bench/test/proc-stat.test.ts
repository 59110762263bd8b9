import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { describe, it } from 'node:test'
import {
  coreDelta,
  coreTimes,
  parseCoreTimes,
  parseProcessTicks,
  processCpuSeconds,
} from '../src/proc-stat.js'

describe('/proc readers', () => {
  it('reads utime + stime after a command name with spaces and parentheses', () => {
    const line =
      '4242 (node (worker) x) S 1 4242 4242 0 -1 4194304 99 0 0 0 150 50 0 0 20 0 11 0 45754 3133440 382'
    assert.equal(parseProcessTicks(line), 200)
    assert.throws(() => parseProcessTicks('4242 (node) S 1'))
  })

  it('reads a core line of /proc/stat into busy, idle and steal seconds', () => {
    const text =
      'cpu  300 10 100 900 20 0 5 40 0 0\ncpu0 100 0 50 400 10 0 2 30 0 0\ncpu1 200 10 50 500 10 0 3 10 0 0\n'
    assert.deepEqual(parseCoreTimes(text, 0, 100), { busy: 1.52, idle: 4.1, steal: 0.3 })
    assert.deepEqual(parseCoreTimes(text, undefined, 100), { busy: 4.15, idle: 9.2, steal: 0.4 })
    assert.throws(() => parseCoreTimes(text, 7, 100))
    const d = coreDelta({ busy: 1, idle: 2, steal: 0 }, { busy: 3, idle: 2.5, steal: 0.25 })
    assert.deepEqual(d, { busy: 2, idle: 0.5, steal: 0.25 })
  })

  it('agrees with process.cpuUsage() on this process', {
    skip: !existsSync('/proc/self/stat') && 'no /proc here',
  }, () => {
    const before = processCpuSeconds(process.pid)!
    const usage = process.cpuUsage()
    let x = 0
    // Spend 300 ms of CPU (not of wall time: the machine may be busy).
    while (process.cpuUsage(usage).user < 300_000) x += Math.sqrt(x + 1)
    assert.ok(x > 0)
    const after = processCpuSeconds(process.pid)!
    const spent = process.cpuUsage(usage)
    const expected = (spent.user + spent.system) / 1e6
    // /proc counts in clock ticks (10 ms at 100 Hz) sampled at each tick, getrusage the scheduler's
    // exact runtime; on a loaded machine the two drift apart (0.700 against 0.667 s seen in CI).
    // Allow two ticks or 10 %, whichever is more: a wrong field or tick rate is off by far more.
    assert.ok(
      Math.abs(after - before - expected) <= Math.max(0.02, 0.1 * expected) + 1e-9,
      `/proc ${after - before} s, cpuUsage ${expected} s`,
    )
    assert.ok(coreTimes(0)!.busy > 0)
    assert.equal(processCpuSeconds(undefined), undefined)
  })
})
