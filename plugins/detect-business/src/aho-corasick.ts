/**
 * Aho–Corasick automaton over UTF-16 code units: finds every occurrence of
 * thousands of phrases in one pass over the text, so the cost of a scan does
 * not grow with the number of configured terms.
 *
 * Memory: most nodes of a trie of names have one child, so a node keeps its
 * only child in two flat arrays and only branching nodes get a Map; the root,
 * where most characters of a text land, has a dense table.
 *
 * Speed: when the automaton is small (the built-in markings: ~1,000 states ×
 * 55 character classes), it is also compiled into a dense transition table
 * (state × class, fail links resolved), so a character costs two array reads
 * and never walks fail links or a Map. Larger automata (thousands of terms)
 * keep the compact form. Both report the same matches.
 */

/** Largest dense table (entries) built; above it the compact form is used alone. */
const MAX_DENSE_ENTRIES = 1 << 19
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
  /** Dense form, when small enough: `#dense[node * #width + class]` is the next node. */
  readonly #dense: Uint16Array | Uint32Array | undefined
  readonly #width: number
  /** Class of each ASCII code unit, and of the other code units phrases use; 0 = in no phrase. */
  readonly #asciiClass = new Uint8Array(128)
  readonly #otherClass = new Map<number, number>()
  /** First node on each node's output chain that ends a phrase (itself or a suffix), or -1. */
  readonly #firstHit: Int32Array
  /** For {@link scanFolded}: the class of each ASCII code unit once folded (upper case as lower, separators as a space). */
  readonly #foldedClass = new Uint8Array(128)

  /**
   * Build the automaton; phrase `i` of `phrases` is reported as id `i`. Phrases
   * must be distinct and non-empty. `dense: false` keeps the compact form
   * whatever the size (for tests comparing the two).
   */
  constructor(phrases: readonly string[], options: { readonly dense?: boolean } = {}) {
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
    this.#firstHit = new Int32Array(count)
    for (let node = 0; node < count; node++) {
      this.#firstHit[node] = this.#phrase[node] >= 0 ? node : this.#output[node]
    }
    this.#width = this.#classify(phrases)
    for (let code = 0; code < 128; code++) this.#foldedClass[code] = this.#asciiClass[foldAscii(code)]
    this.#dense =
      options.dense !== false && count * this.#width <= MAX_DENSE_ENTRIES
        ? this.#compile(children)
        : undefined
  }

  /** Numbers the code units phrases use (class 0: every other); returns the number of classes. */
  #classify(phrases: readonly string[]): number {
    let classes = 1
    for (const phrase of phrases) {
      for (let i = 0; i < phrase.length; i++) {
        const code = phrase.charCodeAt(i)
        if (code < 128) {
          if (this.#asciiClass[code] === 0) this.#asciiClass[code] = classes++
        } else if (!this.#otherClass.has(code)) this.#otherClass.set(code, classes++)
      }
    }
    return classes
  }

  /** The dense table: breadth-first, a missing transition is the fail node's (already complete) one. */
  #compile(children: readonly Map<number, number>[]): Uint16Array | Uint32Array {
    const width = this.#width
    const dense =
      children.length > 0xffff
        ? new Uint32Array(children.length * width)
        : new Uint16Array(children.length * width)
    const codeOf: number[] = new Array(width).fill(-1)
    for (let code = 0; code < 128; code++) if (this.#asciiClass[code]) codeOf[this.#asciiClass[code]] = code
    for (const [code, cls] of this.#otherClass) codeOf[cls] = code
    const queue: number[] = [0]
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]
      const row = node * width
      const failRow = this.#fail[node] * width
      for (let cls = 1; cls < width; cls++) {
        const child = children[node].get(codeOf[cls])
        if (child !== undefined) {
          dense[row + cls] = child
          queue.push(child)
        } else dense[row + cls] = node === 0 ? 0 : dense[failRow + cls]
      }
    }
    return dense
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
    if (this.#dense) {
      this.#scanDense(this.#dense, text, onMatch)
      return
    }
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

  /**
   * The same as `scan(foldText(text).text, onMatch)` without building the
   * folded text: ASCII is folded here (upper case as lower, a run of
   * whitespace, `-` and `_` as one space), any other character by
   * `foldOther` (one code point in, its folding out: `' '` for a separator,
   * `''` for a lone mark), exactly as {@link foldText} does; offsets given to
   * `onMatch` are in the folded text. Returns false, having reported nothing,
   * when the automaton has no dense table (then fold and call `scan`).
   */
  scanFolded(
    text: string,
    foldOther: (char: string) => string,
    onMatch: (id: number, start: number, end: number) => void,
  ): boolean {
    const dense = this.#dense
    if (!dense) return false
    const width = this.#width
    const foldedClass = this.#foldedClass
    const asciiClass = this.#asciiClass
    const otherClass = this.#otherClass
    const firstHit = this.#firstHit
    const output = this.#output
    const phrase = this.#phrase
    const lengths = this.#lengths
    let node = 0
    // Code units of the folded text read so far.
    let n = 0
    let lastWasSpace = false
    for (let i = 0; i < text.length; ) {
      const code = text.charCodeAt(i)
      if (code < 0x80) {
        i++
        if (code === 0x20 || code === 0x2d || code === 0x5f || (code >= 0x09 && code <= 0x0d)) {
          if (lastWasSpace) continue
          lastWasSpace = true
        } else lastWasSpace = false
        node = dense[node * width + foldedClass[code]]
        n++
        for (let hit = firstHit[node]; hit > 0; hit = output[hit]) {
          const id = phrase[hit]
          onMatch(id, n - lengths[id], n)
        }
        continue
      }
      const low = code >= 0xd800 && code <= 0xdbff ? text.charCodeAt(i + 1) : 0
      const size = low >= 0xdc00 && low <= 0xdfff ? 2 : 1
      const folded = foldOther(text.slice(i, i + size))
      i += size
      if (folded === '' || (folded === ' ' && lastWasSpace)) continue
      for (let k = 0; k < folded.length; k++) {
        const unit = folded.charCodeAt(k)
        node = dense[node * width + (unit < 0x80 ? asciiClass[unit] : (otherClass.get(unit) ?? 0))]
        n++
        for (let hit = firstHit[node]; hit > 0; hit = output[hit]) {
          const id = phrase[hit]
          onMatch(id, n - lengths[id], n)
        }
      }
      lastWasSpace = folded === ' '
    }
    return true
  }

  #scanDense(
    dense: Uint16Array | Uint32Array,
    text: string,
    onMatch: (id: number, start: number, end: number) => void,
  ): void {
    const width = this.#width
    const asciiClass = this.#asciiClass
    const otherClass = this.#otherClass
    const firstHit = this.#firstHit
    const output = this.#output
    const phrase = this.#phrase
    const lengths = this.#lengths
    let node = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      node = dense[node * width + (code < 128 ? asciiClass[code] : (otherClass.get(code) ?? 0))]
      for (let hit = firstHit[node]; hit > 0; hit = output[hit]) {
        const id = phrase[hit]
        onMatch(id, i + 1 - lengths[id], i + 1)
      }
    }
  }
}

/** An ASCII code unit as {@link foldText} folds it: separators (whitespace, `-`, `_`) to a space, upper case to lower. */
function foldAscii(code: number): number {
  if (code === 0x20 || code === 0x2d || code === 0x5f || (code >= 0x09 && code <= 0x0d)) return 0x20
  return code >= 0x41 && code <= 0x5a ? code + 32 : code
}
