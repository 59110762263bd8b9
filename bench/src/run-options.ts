/** Options of `npm run bench`, from `--name value` arguments. */
export interface RunOptions {
  /** Seconds of measured load per target. */
  duration: number
  connections: number
  /** Seconds of load before measuring, per target (JIT, pools, caches of the system prompt). */
  warmup: number
  /** Sequential requests for the unloaded latency. */
  unloaded: number
  /** Targets to run, in order. */
  targets: string[]
  /** gov's LOG_LEVEL during the run. */
  logLevel: string
}

export const ALL_TARGETS = ['direct', 'bare', 'gov-empty', 'gov-standard']

const DEFAULTS: RunOptions = {
  duration: 10,
  connections: 32,
  warmup: 2,
  unloaded: 300,
  targets: ALL_TARGETS,
  logLevel: 'warn',
}

/** Read the options; unknown names and bad numbers are errors, so a typo never runs the wrong benchmark. */
export function parseRunOptions(argv: string[]): RunOptions {
  const options = { ...DEFAULTS }
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]
    const value = argv[i + 1]
    if (value === undefined) throw new Error(`${name} needs a value`)
    const number = () => {
      const n = Number(value)
      if (!Number.isFinite(n) || n < 0) throw new Error(`${name} takes a number ≥ 0, got "${value}"`)
      return n
    }
    if (name === '--duration') options.duration = number()
    else if (name === '--connections') options.connections = Math.max(1, Math.floor(number()))
    else if (name === '--warmup') options.warmup = number()
    else if (name === '--unloaded') options.unloaded = Math.floor(number())
    else if (name === '--log-level') options.logLevel = value
    else if (name === '--targets') {
      options.targets = value.split(',').map((t) => t.trim())
      const unknown = options.targets.filter((t) => !ALL_TARGETS.includes(t))
      if (unknown.length)
        throw new Error(`unknown targets ${unknown.join(', ')}; use ${ALL_TARGETS.join(', ')}`)
    } else
      throw new Error(
        `unknown option ${name}; options: --duration --connections --warmup --unloaded --targets --log-level`,
      )
  }
  return options
}
