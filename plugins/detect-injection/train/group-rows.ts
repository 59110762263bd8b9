/**
 * Grouping near-duplicate rows for cross-validation. The dev set repeats
 * injections inside longer rows ("benign question + injection") and across
 * sources, so a random split would test on text the model trained on. Rows
 * that share a rare run of eight words land in the same group and therefore
 * in the same fold.
 */
import type { Row } from './dataset.js'

const SHINGLE = 8
// A shingle found in many rows is boilerplate ("I want you to act as a …"), not duplication.
const MAX_ROWS_PER_SHINGLE = 6

function find(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]]
    i = parent[i]
  }
  return i
}

/** A group id per row (rows in one group share long word runs). */
export function groupRows(rows: readonly Row[]): Int32Array {
  const parent = Int32Array.from(rows, (_, i) => i)
  const byShingle = new Map<string, number[]>()
  rows.forEach((row, i) => {
    const words = row.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
    const seen = new Set<string>()
    for (let k = 0; k + SHINGLE <= words.length; k++) seen.add(words.slice(k, k + SHINGLE).join(' '))
    for (const s of seen) {
      const list = byShingle.get(s)
      if (list) list.push(i)
      else byShingle.set(s, [i])
    }
  })
  for (const list of byShingle.values()) {
    if (list.length < 2 || list.length > MAX_ROWS_PER_SHINGLE) continue
    for (const i of list.slice(1)) parent[find(parent, i)] = find(parent, list[0])
  }
  return Int32Array.from(rows, (_, i) => find(parent, i))
}

/** Assign groups to `k` folds, spreading rows evenly (deterministic). */
export function foldsOf(groups: Int32Array, k: number, seed = 7): Int32Array {
  const sizes = new Map<number, number>()
  for (const g of groups) sizes.set(g, (sizes.get(g) ?? 0) + 1)
  // Largest groups first, each into the currently smallest fold; ties broken by a seeded hash.
  const order = [...sizes.keys()].sort((a, b) => {
    const d = (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0)
    return d !== 0 ? d : (Math.imul(a ^ seed, 2654435761) >>> 0) - (Math.imul(b ^ seed, 2654435761) >>> 0)
  })
  const load = new Array<number>(k).fill(0)
  const foldOfGroup = new Map<number, number>()
  for (const g of order) {
    let best = 0
    for (let f = 1; f < k; f++) if (load[f] < load[best]) best = f
    foldOfGroup.set(g, best)
    load[best] += sizes.get(g) ?? 0
  }
  return Int32Array.from(groups, (g) => foldOfGroup.get(g) ?? 0)
}
