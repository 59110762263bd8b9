/** The seeded generator (mulberry32) of @gov/core's testing kit: the same seed gives the same prompts on every machine. */
export { seededRandom } from '@gov/core/testing'

/** A shuffled copy (Fisher–Yates). */
export function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
