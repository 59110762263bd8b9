/**
 * The arithmetic of `npm run bench`'s interleaved rounds: the targets are
 * measured in rotation (direct, bare, gov-empty, gov-standard, direct, bare, …),
 * and a target's measurement is compared with the reference's (the bare proxy)
 * measured just before and just after it, so both saw nearly the same machine.
 * The headline is the median of those paired ratios, with their range.
 */

/** Median, quartiles and range of a sample; non-finite values are left out. */
export interface Spread {
  median: number
  /** 25th and 75th percentiles (linear interpolation between order statistics). */
  q1: number
  q3: number
  min: number
  max: number
  /** Finite values counted. */
  n: number
}

/** The `q` quantile of sorted values, interpolating linearly (q = 0.5 of an even count is the mean of the middle two). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const at = (sorted.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

export function spread(values: readonly number[]): Spread {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b)
  return {
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  }
}

/** One measurement, in the order it was taken. */
export interface Slot {
  target: string
  value: number
}

/**
 * The reference for the slot at `index`: the mean of the nearest `reference`
 * slots before and after it that have a finite value (one of them at the ends
 * of the sequence); NaN when there is none.
 */
export function bracketingReference(sequence: readonly Slot[], index: number, reference: string): number {
  const near: number[] = []
  for (let i = index - 1; i >= 0; i--) {
    const s = sequence[i]!
    if (s.target === reference && Number.isFinite(s.value)) {
      near.push(s.value)
      break
    }
  }
  for (let i = index + 1; i < sequence.length; i++) {
    const s = sequence[i]!
    if (s.target === reference && Number.isFinite(s.value)) {
      near.push(s.value)
      break
    }
  }
  return near.length ? near.reduce((a, b) => a + b, 0) / near.length : Number.NaN
}

/**
 * Per measurement of `target`, in order: its value divided by its bracketing
 * reference (see {@link bracketingReference}). NaN where either is missing or
 * the reference is 0.
 */
export function pairedRatios(sequence: readonly Slot[], target: string, reference: string): number[] {
  const out: number[] = []
  sequence.forEach((slot, i) => {
    if (slot.target === target) out.push(ratioAt(sequence, i, reference))
  })
  return out
}

/** The slot at `index` divided by its bracketing reference; NaN where either is missing or the reference is 0. */
export function ratioAt(sequence: readonly Slot[], index: number, reference: string): number {
  const value = sequence[index]?.value ?? Number.NaN
  const ref = bracketingReference(sequence, index, reference)
  return ref > 0 && Number.isFinite(value) ? value / ref : Number.NaN
}
