/** Options of `npm run bench`, from `--name value` arguments. */
export interface RunOptions {
  /** Seconds of measured load per target in all: `rounds` × `roundSeconds`. */
  duration: number
  /** Rounds: each measures every target once, in the order of `targets`. */
  rounds: number
  /** Seconds of measured load per target per round. */
  roundSeconds: number
  /** Seconds of load on a target at the start of each of its rounds, not measured (opens the connections again). */
  roundWarmup: number
  connections: number
  /** Seconds of load per target before its unloaded latency and the rounds (JIT, pools, caches of the system prompt). */
  warmup: number
  /** After `warmup`, more warm-up (1 s at a time) until the target answered this many calls in all… */
  warmupCalls: number
  /** …or this many seconds of warm-up have passed. */
  warmupMax: number
  /** Sequential requests for the unloaded latency. */
  unloaded: number
  /** Targets to run, in order. */
  targets: string[]
  /** gov's LOG_LEVEL during the run. */
  logLevel: string
}

export const ALL_TARGETS = ['direct', 'bare', 'gov-empty', 'gov-standard']

const DEFAULTS: RunOptions = {
  duration: 12,
  rounds: 6,
  roundSeconds: 2,
  roundWarmup: 0.3,
  connections: 32,
  warmup: 2,
  warmupCalls: 3000,
  warmupMax: 8,
  unloaded: 300,
  targets: ALL_TARGETS,
  logLevel: 'warn',
}

const OPTION_NAMES =
  '--rounds --round-seconds --round-warmup --duration --connections --warmup --warmup-calls --warmup-max --unloaded --targets --log-level'

/** Read the options; unknown names and bad numbers are errors, so a typo never runs the wrong benchmark. */
export function parseRunOptions(argv: string[]): RunOptions {
  const options = { ...DEFAULTS }
  let duration: number | undefined
  let roundSecondsSet = false
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]
    const value = argv[i + 1]
    if (value === undefined) throw new Error(`${name} needs a value`)
    const number = () => {
      const n = Number(value)
      if (value.trim() === '' || !Number.isFinite(n) || n < 0)
        throw new Error(`${name} takes a number ≥ 0, got "${value}"`)
      return n
    }
    const positive = () => {
      const n = number()
      if (n === 0) throw new Error(`${name} takes a number > 0, got "${value}"`)
      return n
    }
    if (name === '--duration') duration = positive()
    else if (name === '--rounds') options.rounds = Math.max(1, Math.floor(positive()))
    else if (name === '--round-seconds') {
      options.roundSeconds = positive()
      roundSecondsSet = true
    } else if (name === '--round-warmup') options.roundWarmup = number()
    else if (name === '--connections') options.connections = Math.max(1, Math.floor(number()))
    else if (name === '--warmup') options.warmup = number()
    else if (name === '--warmup-calls') options.warmupCalls = Math.floor(number())
    else if (name === '--warmup-max') options.warmupMax = number()
    else if (name === '--unloaded') options.unloaded = Math.floor(number())
    else if (name === '--log-level') options.logLevel = value
    else if (name === '--targets') {
      options.targets = value.split(',').map((t) => t.trim())
      const unknown = options.targets.filter((t) => !ALL_TARGETS.includes(t))
      if (unknown.length)
        throw new Error(`unknown targets ${unknown.join(', ')}; use ${ALL_TARGETS.join(', ')}`)
    } else throw new Error(`unknown option ${name}; options: ${OPTION_NAMES}`)
  }
  if (duration !== undefined) {
    if (roundSecondsSet)
      throw new Error('--duration (seconds per target in all) and --round-seconds exclude each other')
    // autocannon's clock has 10 ms steps: keep a round a whole number of them.
    options.roundSeconds = Math.max(0.1, Math.round((duration / options.rounds) * 100) / 100)
  }
  options.duration = options.rounds * options.roundSeconds
  return options
}
