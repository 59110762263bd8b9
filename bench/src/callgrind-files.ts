/**
 * Reading callgrind's output for `bench:callgrind`: naming V8's JIT code from
 * node's `--perf-basic-prof` map, and the totals and top functions
 * `callgrind_annotate` prints.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'

interface PerfEntry {
  start: bigint
  end: bigint
  name: string
}

/** `/tmp/perf-<pid>.map` lines (`START SIZE name`, hex), sorted by start; a later line for the same start wins. */
export function parsePerfMap(text: string): PerfEntry[] {
  const byStart = new Map<bigint, PerfEntry>()
  for (const line of text.split('\n')) {
    const m = /^([0-9a-fA-F]+) ([0-9a-fA-F]+) (.+)$/.exec(line)
    if (!m) continue
    const start = BigInt(`0x${m[1]}`)
    byStart.set(start, { start, end: start + BigInt(`0x${m[2]}`), name: m[3]! })
  }
  return [...byStart.values()].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
}

/** The entry holding `address`, if any. */
export function lookupPerf(entries: readonly PerfEntry[], address: bigint): PerfEntry | undefined {
  let lo = 0
  let hi = entries.length - 1
  let found: PerfEntry | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const e = entries[mid]!
    if (e.start <= address) {
      found = e
      lo = mid + 1
    } else hi = mid - 1
  }
  return found && address < found.end ? found : undefined
}

/**
 * Callgrind names code without a symbol by its address (`fn=(12) 0x00000000…`).
 * Rename each such function that lies in V8's JIT code to `JS:<name>` from
 * the perf map (callgrind_annotate then adds up the pieces of one JS function),
 * in a callgrind file's text. Returns the text and how many names it changed.
 */
export function renameJit(callgrindText: string, perfMapText: string): { text: string; renamed: number } {
  const entries = parsePerfMap(perfMapText)
  let renamed = 0
  const text = callgrindText.replace(
    /^(c?fn=\(\d+\) )0x([0-9a-fA-F]+)$/gm,
    (whole, prefix: string, hex: string) => {
      const entry = lookupPerf(entries, BigInt(`0x${hex}`))
      if (!entry) return whole
      renamed++
      return `${prefix}JS:${entry.name.replace(/^JS:/, '')}`
    },
  )
  return { text, renamed }
}

/**
 * A dump taken after `callgrind_control --zero` lists the calls that were open
 * at the zero (thread entry points, the event loop) with `calls=0`, and
 * callgrind_annotate then charges their whole inclusive cost to the caller's
 * self cost (`__libc_start_main` "spent" half the window). Counting them as one call fixes the
 * self costs; the call count is shown nowhere here.
 */
export function fixOpenCalls(callgrindText: string): string {
  return callgrindText.replace(/^calls=0 /gm, 'calls=1 ')
}

/** Rewrite a callgrind dump in place: {@link fixOpenCalls}, and {@link renameJit} with node's perf map if there is one. */
export function prepareDump(dumpPath: string, perfMapText: string | undefined): number {
  let text = fixOpenCalls(readFileSync(dumpPath, 'utf8'))
  let renamed = 0
  if (perfMapText !== undefined) ({ text, renamed } = renameJit(text, perfMapText))
  writeFileSync(dumpPath, text)
  return renamed
}

export interface AnnotatedRow {
  ir: number
  name: string
}

export interface Annotated {
  /** Instructions of the whole dump. */
  total: number
  /** Of them, self costs of V8's garbage collector and of its optimising compilers (see {@link costKind}). */
  gc: number
  compiler: number
  /** JS functions only (the native frames' inclusive costs are mostly V8's call trampolines). */
  inclusive: AnnotatedRow[]
  exclusive: AnnotatedRow[]
}

/** The `PROGRAM TOTALS` and function rows of `callgrind_annotate` output, in its order. */
export function parseAnnotate(output: string): { total: number; rows: AnnotatedRow[] } {
  let total = Number.NaN
  const rows: AnnotatedRow[] = []
  for (const line of output.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+?)\s*$/.exec(line)
    if (!m) continue
    const ir = Number(m[1]!.replaceAll(',', ''))
    if (m[2] === 'PROGRAM TOTALS') total = ir
    else rows.push({ ir, name: m[2]! })
  }
  if (!Number.isFinite(total)) throw new Error('callgrind_annotate printed no PROGRAM TOTALS')
  return { total, rows }
}

/**
 * Which part of V8 a function belongs to, by its name: the garbage collector
 * (marking, sweeping, scavenging, compaction: its cost comes in bursts, and a
 * major collection landing in a short window can double it), the optimising
 * compilers (TurboFan, Maglev: work that tails off with warm-up), or neither.
 */
export function costKind(name: string): 'gc' | 'compiler' | 'other' {
  if (/v8::internal::(compiler|maglev)::|OptimizedCompilationJob|TurbofanCompilationJob/.test(name))
    return 'compiler'
  if (
    /v8::internal::(Heap::|\w*Marking\w*|\w*Sweeper\w*|\w*Scaveng\w*|\w*Evacuat\w*|MarkCompact\w*|MinorMarkCompact\w*|\w*Compactor\w*|MemoryAllocator|PagedSpace|SemiSpace|MemoryChunk|\w*GCTracer|IncrementalMarking|ConcurrentMarking)|heap::base::|cppgc::|MarkingVisitor|HeapObject::SizeFromMap|IteratePointers<|_Map_base<v8::internal::MemoryChunk/.test(
      name,
    )
  )
    return 'gc'
  return 'other'
}

/** Shorten a C++ signature or a JS script URL for a table cell. */
export function shortName(name: string, max = 160): string {
  const short = name.replace(/file:\/\/\/\S*?\/(host|core|plugins|bench|node_modules)\//g, '$1/')
  return short.length > max ? `${short.slice(0, max - 1)}…` : short
}

/** Total, and the `top` functions inclusive and exclusive, of one callgrind dump. */
export function annotate(dumpPath: string, top: number): Annotated {
  const run = (inclusive: boolean) => {
    const r = spawnSync(
      'callgrind_annotate',
      [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', '--auto=no', dumpPath],
      { encoding: 'utf8', maxBuffer: 1 << 28 },
    )
    if (r.status !== 0) throw new Error(`callgrind_annotate ${dumpPath} failed: ${r.stderr}`)
    return parseAnnotate(r.stdout)
  }
  const inclusive = run(true)
  const exclusive = run(false)
  const rows = (list: AnnotatedRow[]) =>
    list.slice(0, top).map((row) => ({ ir: row.ir, name: shortName(row.name) }))
  let gc = 0
  let compiler = 0
  for (const row of exclusive.rows) {
    const kind = costKind(row.name)
    if (kind === 'gc') gc += row.ir
    else if (kind === 'compiler') compiler += row.ir
  }
  return {
    total: exclusive.total,
    gc,
    compiler,
    inclusive: rows(inclusive.rows.filter((row) => row.name.includes('JS:'))),
    exclusive: rows(exclusive.rows),
  }
}
