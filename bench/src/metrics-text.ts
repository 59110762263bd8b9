/**
 * Reads the Prometheus exposition text of gov's `/metrics` (what prom-client
 * writes): one sample per line, `name{label="value",…} number`. Comments and
 * blank lines are skipped; a line that does not parse is an error, so a
 * format change never turns into silent zeros in the phase table.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c))
}

function number(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY
  if (text === '-Inf') return Number.NEGATIVE_INFINITY
  return Number(text)
}

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (!m) throw new Error(`not a metrics sample line: ${line.slice(0, 200)}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = unescapeLabel(l[2]!)
    const value = number(m[3]!)
    if (Number.isNaN(value) && !/^nan$/i.test(m[3]!))
      throw new Error(`not a number in: ${line.slice(0, 200)}`)
    out.push({ name: m[1]!, labels, value })
  }
  return out
}

/** Sum of the samples named `name` whose labels include `match`. */
export function total(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  let sum = 0
  for (const s of samples) {
    if (s.name !== name) continue
    if (Object.entries(match).every(([k, v]) => s.labels[k] === v)) sum += s.value
  }
  return sum
}

/** The distinct values of `label` among samples named `name`. */
export function labelValues(samples: readonly Sample[], name: string, label: string): string[] {
  const seen = new Set<string>()
  for (const s of samples) if (s.name === name && s.labels[label] !== undefined) seen.add(s.labels[label])
  return [...seen]
}
