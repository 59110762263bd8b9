/**
 * Which rule keywords occur in a text, in one pass over its code units: an
 * Aho–Corasick automaton compiled into a dense table (state × character class),
 * so each character costs two array reads and no backtracking. Keywords are
 * lower-case ASCII and match ASCII letters of either case, exactly as the
 * case-insensitive (non-Unicode) regex this replaces did: a non-ASCII
 * character never matches an ASCII keyword character.
 *
 * The table (about 2,000 states × 52 classes of 32 bits for the built-in rules,
 * ~420 KB) is shared by every scanner built from the same keyword list.
 */

export class KeywordAutomaton {
  /** Keyword `i` is reported as id `i`. */
  readonly keywords: readonly string[]
  /** Character class of each ASCII code unit (upper-case letters share their lower-case class); 0 = in no keyword. */
  readonly #classOf = new Uint8Array(128)
  readonly #width: number
  /**
   * `#next[row + class]` is the row of the state after reading a character of
   * `class`, where a state's row is its number × `#width` (kept pre-multiplied
   * so the loop does no multiplication). States are numbered so that those
   * ending a keyword come last: a row at or past `#firstOutputRow` has output.
   */
  readonly #next: Int32Array
  readonly #firstOutputRow: number
  /** Keyword ids ending at each state (its own and those of its suffixes): `#outIds[#outStart[s] .. #outStart[s + 1])`. */
  readonly #outStart: Uint32Array
  readonly #outIds: Uint32Array

  static readonly #shared = new Map<string, KeywordAutomaton>()

  /** One automaton per distinct keyword list (scanners of the same rules share it). */
  static for(keywords: readonly string[]): KeywordAutomaton {
    const key = keywords.join('\n')
    let automaton = KeywordAutomaton.#shared.get(key)
    if (!automaton) {
      automaton = new KeywordAutomaton(keywords)
      // Bounded: one entry per distinct set of enabled kinds in use.
      if (KeywordAutomaton.#shared.size >= 32) KeywordAutomaton.#shared.clear()
      KeywordAutomaton.#shared.set(key, automaton)
    }
    return automaton
  }

  /** Throws when a keyword is empty, not lower case or not ASCII (rules are built in; this is a programming error). */
  constructor(keywords: readonly string[]) {
    this.keywords = keywords
    let classes = 1
    for (const keyword of keywords) {
      if (!/^[\x20-\x7e]+$/.test(keyword) || keyword !== keyword.toLowerCase()) {
        throw new Error(
          `scan_secrets: rule keyword ${JSON.stringify(keyword)} is not lower-case printable ASCII`,
        )
      }
      for (let i = 0; i < keyword.length; i++) {
        const code = keyword.charCodeAt(i)
        if (this.#classOf[code] === 0) this.#classOf[code] = classes++
      }
    }
    for (let code = 0x41; code <= 0x5a; code++) this.#classOf[code] = this.#classOf[code + 32]
    this.#width = classes

    // Trie with a dense child table per state.
    const goto: number[][] = [new Array<number>(classes).fill(-1)]
    const ends: number[][] = [[]]
    keywords.forEach((keyword, id) => {
      let state = 0
      for (let i = 0; i < keyword.length; i++) {
        const cls = this.#classOf[keyword.charCodeAt(i)]
        if (goto[state][cls] < 0) {
          goto[state][cls] = goto.length
          goto.push(new Array<number>(classes).fill(-1))
          ends.push([])
        }
        state = goto[state][cls]
      }
      if (!ends[state].includes(id)) ends[state].push(id)
    })
    const count = goto.length
    // Transitions by state number first (complete rows, fail links resolved), renumbered below.
    const next = new Int32Array(count * classes)
    const fail = new Int32Array(count)
    // Breadth-first: missing transitions follow the fail state's (already complete) row; outputs gather along fail links.
    const queue: number[] = []
    for (let cls = 1; cls < classes; cls++) {
      const child = goto[0][cls]
      next[cls] = Math.max(child, 0)
      if (child > 0) queue.push(child)
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]
      for (const id of ends[fail[state]]) if (!ends[state].includes(id)) ends[state].push(id)
      for (let cls = 1; cls < classes; cls++) {
        const child = goto[state][cls]
        if (child > 0) {
          fail[child] = next[fail[state] * classes + cls]
          next[state * classes + cls] = child
          queue.push(child)
        } else next[state * classes + cls] = next[fail[state] * classes + cls]
      }
    }
    // Renumber: the root stays 0, states with output go last.
    const order = [...Array(count).keys()].sort(
      (a, b) => Number(ends[a].length > 0) - Number(ends[b].length > 0) || a - b,
    )
    const numberOf = new Int32Array(count)
    order.forEach((state, number) => {
      numberOf[state] = number
    })
    this.#next = new Int32Array(count * classes)
    for (let state = 0; state < count; state++) {
      const row = numberOf[state] * classes
      for (let cls = 0; cls < classes; cls++)
        this.#next[row + cls] = numberOf[next[state * classes + cls]] * classes
    }
    const firstOutput = order.findIndex((state) => ends[state].length > 0)
    this.#firstOutputRow = (firstOutput < 0 ? count : firstOutput) * classes
    this.#outStart = new Uint32Array(count + 1)
    const ids: number[] = []
    order.forEach((state, number) => {
      this.#outStart[number] = ids.length
      ids.push(...ends[state])
    })
    this.#outStart[count] = ids.length
    this.#outIds = Uint32Array.from(ids)
  }

  /**
   * Marks every keyword occurring in `text`: `seen[id] = stamp` for each, and
   * the ids not marked before are written to `found`; returns how many were.
   * `seen` and `found` have one entry per keyword.
   */
  mark(text: string, stamp: number, seen: Uint32Array, found: Uint32Array): number {
    const classOf = this.#classOf
    const next = this.#next
    const width = this.#width
    const firstOutputRow = this.#firstOutputRow
    const outStart = this.#outStart
    const outIds = this.#outIds
    let row = 0
    let count = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      row = next[row + (code < 128 ? classOf[code] : 0)]
      if (row < firstOutputRow) continue
      const state = row / width
      const last = outStart[state + 1]
      for (let j = outStart[state]; j < last; j++) {
        const id = outIds[j]
        if (seen[id] !== stamp) {
          seen[id] = stamp
          found[count++] = id
        }
      }
    }
    return count
  }
}
