/** Median and 99th percentile of a sample (nearest rank). */
export function summarize(samples: readonly number[]): { median: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
  return { median: at(0.5), p99: at(0.99), n: sorted.length }
}
