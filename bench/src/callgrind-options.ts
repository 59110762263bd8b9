/** Options of `npm run bench:callgrind` (`callgrind.ts`), from `--name value` arguments. */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** What can be measured: gov on the empty pipeline, gov on preset `standard`, the bare proxy. */
export const CALLGRIND_TARGETS = ['empty', 'standard', 'bare'] as const
export type CallgrindTarget = (typeof CALLGRIND_TARGETS)[number]

/**
 * What a measured window holds: `single`, new 1-turn calls; `conversation`,
 * whole conversations of `--turns` turns (each turn resends the history, as
 * `bench:conversation` plays them); `last`, only turn `--turns` of
 * conversations whose earlier turns were played just before the window.
 */
export const CALLGRIND_SCENARIOS = ['single', 'conversation', 'last'] as const
export type CallgrindScenario = (typeof CALLGRIND_SCENARIOS)[number]

/** One build of the host to measure: a label and the `index.js` of its `host/dist/src`. */
export interface CallgrindBuild {
  label: string
  /** Absolute path of the build's host `dist/src/index.js`. */
  module: string
}

export interface CallgrindOptions {
  builds: CallgrindBuild[]
  /** In the order given; `bare` runs once whatever the builds. */
  targets: CallgrindTarget[]
  /** Calls before the measured window (JIT, caches, first-call set-up). */
  warmup: number
  /** Calls in the measured window. */
  calls: number
  /** Calls in flight at a time (1: one after another, the same instruction count every run). */
  concurrency: number
  /** Windows measured on each server, one after the other, in this order. */
  scenarios: CallgrindScenario[]
  /** Turns of a conversation (`conversation`, `last`). */
  turns: number
  /** Conversations per window (`conversation`, `last`). */
  conversations: number
  /** Functions listed per table (inclusive and exclusive). */
  top: number
  /** Flags for node under valgrind (e.g. `--jitless`). */
  nodeFlags: string[]
  /** Where the callgrind files go. */
  out: string
}

const DEFAULTS = { warmup: 2000, calls: 300, concurrency: 1, top: 25, turns: 50, conversations: 4 }

const NAMES =
  '--builds --targets --scenarios --warmup --calls --concurrency --turns --conversations --top --node-flags --out'

/**
 * A build folder: a tree holding `host/dist/src/index.js` (a checkout or
 * `git archive` copy, built), or a host `dist/src` folder itself.
 */
export function buildModule(dir: string): string {
  const tree = join(resolve(dir), 'host', 'dist', 'src', 'index.js')
  if (existsSync(tree)) return tree
  const direct = join(resolve(dir), 'index.js')
  if (existsSync(direct)) return direct
  throw new Error(`--builds: ${dir} holds neither host/dist/src/index.js nor index.js (build it first)`)
}

/** The comma-separated names of `--<flag>`, each one of `known`; throws naming the flag otherwise. */
function knownNames<T extends string>(flag: string, noun: string, value: string, known: readonly T[]): T[] {
  const names = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  if (names.length === 0) throw new Error(`--${flag} names no ${noun}`)
  for (const t of names)
    if (!(known as readonly string[]).includes(t))
      throw new Error(`--${flag}: unknown ${noun} "${t}"; ${flag}: ${known.join(',')}`)
  return names as T[]
}

/**
 * Read the options; unknown names, bad numbers, unknown targets and build
 * folders without a built host are errors, so a typo never runs the wrong
 * (minutes-long) measurement. `root` is this checkout (the default build
 * `current`); `resolveBuild` finds a build's module (tests pass their own).
 */
export function parseCallgrindOptions(
  argv: readonly string[],
  root: string,
  resolveBuild: (dir: string) => string = buildModule,
): CallgrindOptions {
  const numbers: Record<string, number> = { ...DEFAULTS }
  let builds = `current=${root}`
  let targets = 'empty,bare'
  let scenarios = 'single'
  let nodeFlags = ''
  let out = join(root, 'bench', 'results', 'callgrind')
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!
    const value = argv[i + 1]
    if (value === undefined) throw new Error(`${flag} needs a value`)
    const name = flag.replace(/^--/, '')
    if (!flag.startsWith('--')) throw new Error(`unexpected argument ${flag}; options: ${NAMES}`)
    if (name in DEFAULTS) {
      const n = Number(value)
      if (value.trim() === '' || !Number.isInteger(n) || n < (name === 'warmup' ? 0 : 1))
        throw new Error(`${flag} takes a whole number ≥ ${name === 'warmup' ? 0 : 1}, got "${value}"`)
      numbers[name] = n
    } else if (name === 'builds') builds = value
    else if (name === 'targets') targets = value
    else if (name === 'scenarios') scenarios = value
    else if (name === 'node-flags') nodeFlags = value
    else if (name === 'out') out = resolve(value)
    else throw new Error(`unknown option ${flag}; options: ${NAMES}`)
  }
  const targetList = knownNames('targets', 'target', targets, CALLGRIND_TARGETS)
  const scenarioList = knownNames('scenarios', 'scenario', scenarios, CALLGRIND_SCENARIOS)
  const buildList = builds
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean)
    .map((spec) => {
      const at = spec.indexOf('=')
      if (at <= 0 || at === spec.length - 1) throw new Error(`--builds: "${spec}" is not label=DIR`)
      return { label: spec.slice(0, at), module: resolveBuild(spec.slice(at + 1)) }
    })
  if (buildList.length === 0) throw new Error('--builds names no build')
  const labels = buildList.map((b) => b.label)
  if (new Set(labels).size !== labels.length)
    throw new Error(`--builds: a label repeats (${labels.join(',')})`)
  return {
    builds: buildList,
    targets: [...new Set(targetList)] as CallgrindTarget[],
    warmup: numbers.warmup!,
    calls: numbers.calls!,
    concurrency: numbers.concurrency!,
    scenarios: [...new Set(scenarioList)] as CallgrindScenario[],
    turns: numbers.turns!,
    conversations: numbers.conversations!,
    top: numbers.top!,
    nodeFlags: nodeFlags.split(' ').filter(Boolean),
    out,
  }
}
