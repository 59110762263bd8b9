/**
 * Aho–Corasick automaton over UTF-16 code units: finds every occurrence of
 * thousands of phrases in one pass over the text, so the cost of a scan does
 * not grow with the number of configured terms.
 *
 * Memory: most nodes of a trie of names have one child, so a node keeps its
 * only child in two flat arrays and only branching nodes get a Map; the root,
 * where most characters of a text land, has a dense table.
 */
export class AhoCorasick {
  /** Code unit of the only child of each node, or -1 (no child, or several: see {@link #branches}). */
  readonly #onlyCode: Int32Array
  /** The only child of each node. */
  readonly #onlyChild: Int32Array
  /** Children of branching nodes. */
  readonly #branches: (Map<number, number> | undefined)[]
  /** Longest proper suffix node of each node. */
  readonly #fail: Int32Array
  /** Phrase id ending exactly at each node, or -1. */
  readonly #phrase: Int32Array
  /** Nearest node on the fail chain that ends a phrase, or -1. */
  readonly #output: Int32Array
  /** Length in code units of each phrase. */
  readonly #lengths: Int32Array
  /** Root transitions over all code units (0 = stay at the root). */
  readonly #rootNext = new Int32Array(0x10000)

  /** Build the automaton; phrase `i` of `phrases` is reported as id `i`. Phrases must be distinct and non-empty. */
  constructor(phrases: readonly string[]) {
    // Build with a Map per node, then compact.
    const children: Map<number, number>[] = [new Map()]
    const phraseAt: number[] = [-1]
    this.#lengths = new Int32Array(phrases.length)
    for (const [id, phrase] of phrases.entries()) {
      let node = 0
      for (let i = 0; i < phrase.length; i++) {
        const code = phrase.charCodeAt(i)
        let next = children[node].get(code)
        if (next === undefined) {
          next = children.length
          children.push(new Map())
          phraseAt.push(-1)
          children[node].set(code, next)
        }
        node = next
      }
      phraseAt[node] = id
      this.#lengths[id] = phrase.length
    }
    const count = children.length
    this.#onlyCode = new Int32Array(count).fill(-1)
    this.#onlyChild = new Int32Array(count)
    this.#branches = new Array(count)
    for (let node = 0; node < count; node++) {
      const map = children[node]
      if (map.size === 1) {
        const [[code, child]] = map
        this.#onlyCode[node] = code
        this.#onlyChild[node] = child
      } else if (map.size > 1) this.#branches[node] = map
    }
    for (const [code, child] of children[0]) this.#rootNext[code] = child
    this.#phrase = Int32Array.from(phraseAt)
    this.#fail = new Int32Array(count)
    this.#output = new Int32Array(count).fill(-1)
    this.#link(children)
  }

  /** The child of `node` for `code`, or -1. */
  #child(node: number, code: number): number {
    if (node === 0) return this.#rootNext[code] || -1
    if (this.#onlyCode[node] === code) return this.#onlyChild[node]
    return this.#branches[node]?.get(code) ?? -1
  }

  /** Breadth-first: a node's fail link is its parent's fail target extended by the same code unit. */
  #link(children: readonly Map<number, number>[]): void {
    const queue: number[] = [...children[0].values()]
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]
      for (const [code, child] of children[node]) {
        let fallback = this.#fail[node]
        let target = this.#child(fallback, code)
        while (target < 0 && fallback !== 0) {
          fallback = this.#fail[fallback]
          target = this.#child(fallback, code)
        }
        this.#fail[child] = target > 0 && target !== child ? target : 0
        const suffix = this.#fail[child]
        this.#output[child] = this.#phrase[suffix] >= 0 ? suffix : this.#output[suffix]
        queue.push(child)
      }
    }
  }

  /** Call `onMatch(id, start, end)` for every occurrence (overlapping ones too) in `text`. */
  scan(text: string, onMatch: (id: number, start: number, end: number) => void): void {
    const onlyCode = this.#onlyCode
    const onlyChild = this.#onlyChild
    const branches = this.#branches
    const fail = this.#fail
    const phrase = this.#phrase
    const output = this.#output
    const lengths = this.#lengths
    const rootNext = this.#rootNext
    let node = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      let next = -1
      while (node !== 0) {
        next = onlyCode[node] === code ? onlyChild[node] : (branches[node]?.get(code) ?? -1)
        if (next >= 0) break
        node = fail[node]
      }
      node = next >= 0 ? next : rootNext[code]
      for (let hit = phrase[node] >= 0 ? node : output[node]; hit > 0; hit = output[hit]) {
        const id = phrase[hit]
        onMatch(id, i + 1 - lengths[id], i + 1)
      }
    }
  }
}
