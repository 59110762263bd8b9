import type { LoadResult } from './load-worker.js'

/** One measured target. */
export interface TargetResult {
  name: string
  /** What the target is, for the notes. */
  description: string
  result: LoadResult
}

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const ratio = (a: number, b: number | undefined) => (b ? `${fixed(a / b)}×` : '')

/** Requests that did not get a 2xx answer anywhere in the run (warm-up and unloaded phase included). */
export function failuresOf(r: LoadResult): number {
  return (
    r.loaded.non2xx +
    r.loaded.errors +
    r.loaded.timeouts +
    r.unloaded.non2xx +
    r.warmup.non2xx +
    r.warmup.errors
  )
}

/** The results table in Markdown (it reads fine in a terminal too). */
export function renderTable(targets: TargetResult[]): string {
  const direct = targets.find((t) => t.name === 'direct')?.result
  const bare = targets.find((t) => t.name === 'bare proxy')?.result
  const header = [
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors / non-2xx',
    'req/s vs bare',
    'req/s vs direct',
    'unloaded p50 ms',
    'unloaded p99 ms',
    'unloaded +ms vs direct',
  ]
  const rows = targets.map(({ name, result: r }) => [
    name,
    fixed(r.loaded.requestsPerSecond, 0),
    fixed(r.loaded.p50, 0),
    fixed(r.loaded.p99, 0),
    `${r.loaded.errors + r.loaded.timeouts} / ${r.loaded.non2xx}`,
    name === 'bare proxy' || name === 'direct'
      ? ''
      : ratio(r.loaded.requestsPerSecond, bare?.loaded.requestsPerSecond),
    name === 'direct' ? '' : ratio(r.loaded.requestsPerSecond, direct?.loaded.requestsPerSecond),
    fixed(r.unloaded.p50, 3),
    fixed(r.unloaded.p99, 3),
    name === 'direct' || !direct ? '' : `+${fixed(r.unloaded.p50 - direct.unloaded.p50, 3)}`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}
