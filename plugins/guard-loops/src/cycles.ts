/** A cycle found at the end of a sequence of calls. */
export interface Cycle {
  /** Calls in one round. */
  readonly length: number
  /** Indexes, in the sequence given, of one round's calls (the last round). */
  readonly round: readonly number[]
}

/**
 * The shortest cycle of 2 to `maxLength` calls that the sequence ends with,
 * repeated `repeats` times in a row (A B A B A B is the cycle A B three times),
 * or undefined. A round must hold at least two different calls: one call
 * repeated is the business of `max_repeats`. Work is bounded by
 * `maxLength² × repeats` comparisons, whatever the conversation's length.
 */
export function findCycle(seq: readonly string[], maxLength: number, repeats: number): Cycle | undefined {
  const n = seq.length
  for (let length = 2; length <= maxLength; length++) {
    const span = length * repeats
    if (span > n) break
    let periodic = true
    for (let i = 1; i <= span - length && periodic; i++) {
      if (seq[n - i] !== seq[n - i - length]) periodic = false
    }
    if (!periodic) continue
    const round = Array.from({ length }, (_, k) => n - length + k)
    if (new Set(round.map((k) => seq[k])).size < 2) continue
    return { length, round }
  }
  return undefined
}
