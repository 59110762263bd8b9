/**
 * Summarises a V8 `.cpuprofile` (what `node --cpu-prof` writes): self time per
 * function, per file and per package, optionally only for the samples inside
 * a time window (the load, not the start-up). Self time of a sample is the
 * time until the next sample, as Chrome DevTools counts it.
 */

export interface CpuProfile {
  nodes: {
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number }
  }[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface Entry {
  key: string
  /** Self time in ms. */
  ms: number
  share: number
}

export interface ProfileSummary {
  /** Sampled time in the window, ms. */
  totalMs: number
  samples: number
  /** True when a window was asked for but did not overlap the profile, so everything was counted. */
  windowIgnored: boolean
  functions: Entry[]
  files: Entry[]
  packages: Entry[]
}

/** The file of a call frame, relative to `root` when it is inside it. */
export function fileOf(url: string, root: string): string {
  if (!url) return ''
  let path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url
  const base = root.endsWith('/') ? root : `${root}/`
  if (path.startsWith(base)) path = path.slice(base.length)
  return path
}

/**
 * The package a frame belongs to: V8's pseudo-frames by name (`(garbage
 * collector)`, `(idle)`, `(program)`), `node:` built-ins, the innermost
 * `node_modules/<pkg>`, a workspace of the repository (`host`, `plugins/x`),
 * or the file itself otherwise.
 */
export function packageOf(functionName: string, url: string, root: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:')) return 'node built-ins'
  const path = fileOf(url, root)
  const at = path.lastIndexOf('node_modules/')
  if (at >= 0) {
    const rest = path.slice(at + 'node_modules/'.length).split('/')
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  if (path.startsWith('/')) return path
  const segments = path.split('/')
  return segments[0] === 'plugins' ? `plugins/${segments[1]}` : segments[0]!
}

function ranked(map: Map<string, number>, totalMs: number, limit: number): Entry[] {
  return [...map.entries()]
    .map(([key, ms]) => ({ key, ms, share: totalMs > 0 ? ms / totalMs : 0 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit)
}

/**
 * Summarise `profile`. `window` is [from, to] in the profile's clock (µs,
 * CLOCK_MONOTONIC on Linux, the same as `process.hrtime`).
 */
export function summariseProfile(
  profile: CpuProfile,
  root: string,
  options: { window?: [number, number]; limit?: number } = {},
): ProfileSummary {
  const limit = options.limit ?? 30
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  let window = options.window
  const windowIgnored =
    window !== undefined && (window[1] <= profile.startTime || window[0] >= profile.endTime)
  if (windowIgnored) window = undefined
  const functions = new Map<string, number>()
  const files = new Map<string, number>()
  const packages = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms)
  let t = profile.startTime
  let totalMs = 0
  let counted = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    const next = profile.timeDeltas[i + 1]
    if (next === undefined) break
    if (window && (t < window[0] || t >= window[1])) continue
    const node = byId.get(profile.samples[i]!)
    if (!node)
      throw new Error(`profile sample ${i} names node ${profile.samples[i]} that is not in the profile`)
    const ms = next / 1000
    const { functionName, url, lineNumber } = node.callFrame
    const file = fileOf(url, root)
    const name = functionName || '(anonymous)'
    add(functions, file ? `${name} ${file}:${lineNumber + 1}` : name, ms)
    add(files, file || name, ms)
    add(packages, packageOf(name, url, root), ms)
    totalMs += ms
    counted++
  }
  return {
    totalMs,
    samples: counted,
    windowIgnored,
    functions: ranked(functions, totalMs, limit),
    files: ranked(files, totalMs, limit),
    packages: ranked(packages, totalMs, Number.POSITIVE_INFINITY),
  }
}

function table(title: string, entries: readonly Entry[]): string[] {
  return [
    `| ${title} | self ms | share |`,
    '|---|---:|---:|',
    ...entries.map(
      (e) => `| \`${e.key.replaceAll('|', '\\|')}\` | ${e.ms.toFixed(1)} | ${(e.share * 100).toFixed(1)} % |`,
    ),
  ]
}

/** The summary as Markdown sections. */
export function renderProfile(s: ProfileSummary): string {
  return [
    `${s.samples} samples, ${s.totalMs.toFixed(0)} ms sampled${s.windowIgnored ? ' (the load window did not overlap the profile clock: whole profile counted)' : ''}`,
    '',
    '## By package',
    '',
    ...table('package', s.packages),
    '',
    '## Top functions by self time',
    '',
    ...table('function file:line', s.functions),
    '',
    '## Top files by self time',
    '',
    ...table('file', s.files),
    '',
  ].join('\n')
}
