/**
 * Which of many short strings occur in a text, found in one pass (an
 * Aho–Corasick automaton). Rules declare needles; a rule's regular expression
 * runs only when one of its needles occurs, so one linear scan replaces
 * hundreds of substring searches and most rules never run on benign text.
 */

/** An automaton over a fixed set of needles. */
export class NeedleIndex {
  readonly needles: readonly string[]
  readonly #next: Map<number, number>[] = [new Map()]
  readonly #fail: number[] = [0]
  readonly #out: number[][] = [[]]

  constructor(needles: readonly string[]) {
    this.needles = needles
    needles.forEach((needle, id) => {
      let state = 0
      for (let i = 0; i < needle.length; i++) {
        const c = needle.charCodeAt(i)
        let to = this.#next[state].get(c)
        if (to === undefined) {
          to = this.#next.length
          this.#next.push(new Map())
          this.#fail.push(0)
          this.#out.push([])
          this.#next[state].set(c, to)
        }
        state = to
      }
      this.#out[state].push(id)
    })
    // Breadth-first: each state's failure link is the longest proper suffix that is also a prefix.
    const queue: number[] = [...this.#next[0].values()]
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]
      for (const [c, to] of this.#next[state]) {
        let f = this.#fail[state]
        while (f !== 0 && !this.#next[f].has(c)) f = this.#fail[f]
        const candidate = this.#next[f].get(c)
        this.#fail[to] = candidate !== undefined && candidate !== to ? candidate : 0
        this.#out[to] = [...this.#out[to], ...this.#out[this.#fail[to]]]
        queue.push(to)
      }
    }
  }

  /** Flags, by needle index, of the needles that occur in `text`. */
  find(text: string): Uint8Array {
    const found = new Uint8Array(this.needles.length)
    const next = this.#next
    const fail = this.#fail
    const out = this.#out
    let state = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      let to = next[state].get(c)
      while (to === undefined && state !== 0) {
        state = fail[state]
        to = next[state].get(c)
      }
      state = to ?? 0
      const hits = out[state]
      for (let k = 0; k < hits.length; k++) found[hits[k]] = 1
    }
    return found
  }
}
