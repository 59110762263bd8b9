/**
 * What Linux's /proc says about CPU time, for `npm run bench`: a process's own
 * CPU (user + system, all its threads) from `/proc/<pid>/stat`, and one core's
 * split into busy, idle and steal from `/proc/stat`. Reading them costs the
 * measured processes nothing, and process CPU per call barely moves when other
 * work steals the core (req/s does). Off Linux every reader returns undefined.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let ticksPerSecond: number | undefined

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`, 100 almost everywhere). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
      ticksPerSecond = Number.isFinite(n) && n > 0 ? n : 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** utime + stime, in clock ticks, from the text of `/proc/<pid>/stat`. */
export function parseProcessTicks(text: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: fields after the last ')' start at field 3.
  const rest = text
    .slice(text.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/)
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`not a /proc/<pid>/stat line: ${text}`)
  return utime + stime
}

/** CPU seconds (user + system, every thread) process `pid` has used so far; undefined off Linux or once it exited. */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    return parseProcessTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / clockTicks()
  } catch {
    return undefined
  }
}

/** One core's times since boot, in seconds. */
export interface CoreTimes {
  /** user + nice + system + irq + softirq (guest time is inside user). */
  busy: number
  /** idle + iowait. */
  idle: number
  /** Time the hypervisor gave this virtual core's slot to another guest. */
  steal: number
}

/** The `cpu<core>` line of `/proc/stat`'s text (`core` undefined: the `cpu` line summing all cores). */
export function parseCoreTimes(text: string, core: number | undefined, ticks = clockTicks()): CoreTimes {
  const label = core === undefined ? 'cpu' : `cpu${core}`
  const line = text.split('\n').find((l) => l.startsWith(`${label} `))
  if (!line) throw new Error(`/proc/stat has no ${label} line`)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .slice(label.length)
    .trim()
    .split(/\s+/)
    .map(Number)
  return {
    busy: (user + nice + system + irq + softirq) / ticks,
    idle: (idle + iowait) / ticks,
    steal: steal / ticks,
  }
}

/** `/proc/stat` now for one core (or all), undefined off Linux. */
export function coreTimes(core?: number): CoreTimes | undefined {
  try {
    return parseCoreTimes(readFileSync('/proc/stat', 'utf8'), core)
  } catch {
    return undefined
  }
}

/** The difference `after − before`, field by field. */
export function coreDelta(before: CoreTimes, after: CoreTimes): CoreTimes {
  return { busy: after.busy - before.busy, idle: after.idle - before.idle, steal: after.steal - before.steal }
}
