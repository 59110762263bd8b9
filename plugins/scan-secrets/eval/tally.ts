/** Counts of one report line and the markdown table they print as. */
export interface Tally {
  tp: number
  fn: number
  fp: number
  tn: number
  rightKind: number
  kindJudged: number
}

export const newTally = (): Tally => ({ tp: 0, fn: 0, fp: 0, tn: 0, rightKind: 0, kindJudged: 0 })

/** Adds one row: `found` is whether the scanner reported anything, `rightKind` whether a finding had the expected kind (undefined: not judged). */
export function countRow(t: Tally, label: 0 | 1, found: boolean, rightKind?: boolean): void {
  if (label === 1) {
    if (!found) {
      t.fn++
      return
    }
    t.tp++
    if (rightKind !== undefined) {
      t.kindJudged++
      if (rightKind) t.rightKind++
    }
  } else if (found) t.fp++
  else t.tn++
}

export const pct = (n: number, d: number): string => (d ? `${((100 * n) / d).toFixed(1)}%` : '–')

export function f1(t: Tally): string {
  if (t.tp + t.fp === 0 || t.tp + t.fn === 0) return '–'
  const p = t.tp / (t.tp + t.fp)
  const r = t.tp / (t.tp + t.fn)
  return p + r > 0 ? ((2 * p * r) / (p + r)).toFixed(3) : '–'
}

export const TABLE_HEAD =
  '| group | positives | negatives | TP | FN | FP | precision | recall | F1 | FPR | right kind |\n|---|---|---|---|---|---|---|---|---|---|---|'

export const tableLine = (name: string, t: Tally): string =>
  `| ${name} | ${t.tp + t.fn} | ${t.fp + t.tn} | ${t.tp} | ${t.fn} | ${t.fp} | ${pct(t.tp, t.tp + t.fp)} | ${pct(t.tp, t.tp + t.fn)} | ${f1(t)} | ${pct(t.fp, t.fp + t.tn)} | ${pct(t.rightKind, t.kindJudged)} |`

/** Tallies keyed by a group name, printed sorted. */
export class Breakdown {
  readonly #groups = new Map<string, Tally>()

  get(name: string): Tally {
    let t = this.#groups.get(name)
    if (!t) {
      t = newTally()
      this.#groups.set(name, t)
    }
    return t
  }

  table(): string {
    const lines = [...this.#groups].sort(([a], [b]) => a.localeCompare(b)).map(([n, t]) => tableLine(n, t))
    return `${TABLE_HEAD}\n${lines.join('\n')}`
  }
}
