/** Precision, recall, F1 and false-positive rate, and a markdown table of them. */

/** Counts and rates of one group of rows. */
export interface Metrics {
  readonly rows: number
  readonly positives: number
  readonly tp: number
  readonly fp: number
  readonly fn: number
  readonly tn: number
  readonly precision: number
  readonly recall: number
  readonly f1: number
  readonly fpr: number
}

/** Metrics of predictions against labels. */
export function metricsOf(labels: readonly number[], predicted: readonly boolean[]): Metrics {
  let tp = 0
  let fp = 0
  let fn = 0
  let tn = 0
  labels.forEach((label, i) => {
    if (label === 1) predicted[i] ? tp++ : fn++
    else predicted[i] ? fp++ : tn++
  })
  const precision = tp + fp ? tp / (tp + fp) : Number.NaN
  const recall = tp + fn ? tp / (tp + fn) : Number.NaN
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : Number.NaN
  return {
    rows: labels.length,
    positives: tp + fn,
    tp,
    fp,
    fn,
    tn,
    precision,
    recall,
    f1,
    fpr: fp + tn ? fp / (fp + tn) : Number.NaN,
  }
}

function fmt(x: number): string {
  return Number.isNaN(x) ? '—' : x.toFixed(3)
}

/** A markdown table with one line per group. */
export function metricsTable(groups: readonly { name: string; metrics: Metrics }[]): string {
  const lines = [
    '| group | rows | positives | precision | recall | F1 | FPR |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ]
  for (const { name, metrics: m } of groups) {
    lines.push(
      `| ${name} | ${m.rows} | ${m.positives} | ${fmt(m.precision)} | ${fmt(m.recall)} | ${fmt(m.f1)} | ${fmt(m.fpr)} |`,
    )
  }
  return lines.join('\n')
}
