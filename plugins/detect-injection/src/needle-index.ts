/**
 * Which of many short strings occur in a text, found in one pass (an
 * Aho–Corasick automaton). Rules declare needles; a rule's regular expression
 * runs only when one of its needles occurs, so one linear scan replaces
 * hundreds of substring searches and most rules never run on benign text.
 *
 * The automaton is compiled to a dense table (a DFA: failure links resolved
 * ahead of time) over the characters the needles use, so the scan costs one
 * typed-array read per character and allocates nothing but the result; a
 * character no needle uses sends the automaton back to its start. Each entry
 * of the table is the next state's row offset (no multiplication in the
 * loop), negated (`~offset`) when needles end in that state, so the loop
 * tests one sign instead of reading the output list at every character.
 *
 * A space in a needle stands for any run of whitespace (as `\s+` sees it): the
 * scan reads each run as one space. Rules write `\s+` between words, so a
 * needle of two words is as safe as one word and far more selective. In the
 * table, whitespace read in a state that a space led to stays in that state
 * (every state but the start is reached by one character only, so those states
 * are exactly the ones after a space): the run counts once without a branch.
 */

/** Whitespace as `/\s/u` sees it (every UTF-16 code unit `/\s/` matches; a test checks all of them). */
export const WHITESPACE: readonly number[] = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]

/** An automaton over a fixed set of needles. */
export class NeedleIndex {
  readonly needles: readonly string[]
  /** Character code → column of the table (0: a character no needle uses). */
  readonly #columnOf = new Uint16Array(0x10000)
  readonly #columns: number
  /**
   * `#table[row + column]`, `row = state * #columns`, is the next state's row,
   * or `~row` when needles end in the next state.
   */
  readonly #table: Int32Array
  /** Needles ending in each state (including those of its failure chain): `#outIds[#outStart[s] .. #outStart[s + 1])`. */
  readonly #outStart: Int32Array
  readonly #outIds: Int32Array
  /** How many flags {@link find} reports: one per needle, or one per group. */
  readonly flags: number

  /**
   * With `groups` (`groups[id]`: the groups needle `id` belongs to, numbered
   * below `groupCount`), {@link find} flags groups instead of needles: a rule
   * list asks once per rule whether any of its needles occurred, not once per needle.
   */
  constructor(
    needles: readonly string[],
    groups?: { readonly of: readonly (readonly number[])[]; readonly count: number },
  ) {
    this.needles = needles
    this.flags = groups ? groups.count : needles.length
    const columnOf = this.#columnOf
    let columns = 1
    for (const needle of needles) {
      for (let i = 0; i < needle.length; i++) {
        const c = needle.charCodeAt(i)
        if (columnOf[c] === 0) columnOf[c] = columns++
      }
    }
    this.#columns = columns
    const space = columnOf[0x20]
    if (space !== 0) for (const c of WHITESPACE) columnOf[c] = space

    // The trie: goto[state][column], -1 where there is no edge.
    const goto: Int32Array[] = [new Int32Array(columns).fill(-1)]
    const out: number[][] = [[]]
    needles.forEach((needle, id) => {
      let state = 0
      for (let i = 0; i < needle.length; i++) {
        const column = columnOf[needle.charCodeAt(i)]
        let to = goto[state][column]
        if (to < 0) {
          to = goto.length
          goto.push(new Int32Array(columns).fill(-1))
          out.push([])
          goto[state][column] = to
        }
        state = to
      }
      out[state].push(id)
    })

    // Breadth-first: a missing edge takes the edge of the failure state, which is
    // already complete because it is shallower; outputs inherit the failure state's.
    const states = goto.length
    const table = new Int32Array(states * columns)
    const fail = new Int32Array(states)
    const queue: number[] = []
    for (let column = 0; column < columns; column++) {
      const to = goto[0][column]
      table[column] = Math.max(to, 0)
      if (to > 0) queue.push(to)
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]
      const row = state * columns
      const failRow = fail[state] * columns
      for (let column = 0; column < columns; column++) {
        const to = goto[state][column]
        if (to < 0) {
          table[row + column] = table[failRow + column]
          continue
        }
        table[row + column] = to
        fail[to] = table[failRow + column]
        out[to] = [...out[to], ...out[fail[to]]]
        queue.push(to)
      }
    }
    // Column 0 (a character no needle uses) always leads back to the start.
    for (let state = 0; state < states; state++) table[state * columns] = 0
    // A state after a space keeps reading whitespace in place: the run is one space. Only the
    // start is reached by other characters too, and a space leads there only when no needle
    // starts with one, where a space from the start stays there anyway.
    if (space !== 0) {
      for (let state = 0; state < states; state++) {
        const to = table[state * columns + space]
        if (to !== 0) table[to * columns + space] = to
      }
    }
    // A state reports each group once, however many of the group's needles end there.
    const reported = groups
      ? out.map((ids) => (ids.length === 0 ? ids : [...new Set(ids.flatMap((id) => groups.of[id] ?? []))]))
      : out
    // Row offsets instead of state numbers, negated where needles (of a group) end.
    const ends = new Uint8Array(states)
    for (let state = 0; state < states; state++) ends[state] = reported[state].length > 0 ? 1 : 0
    for (let k = 0; k < table.length; k++) {
      const to = table[k]
      table[k] = ends[to] === 1 ? ~(to * columns) : to * columns
    }

    this.#table = table
    this.#outStart = new Int32Array(states + 1)
    for (let s = 0; s < states; s++) this.#outStart[s + 1] = this.#outStart[s] + reported[s].length
    this.#outIds = Int32Array.from(reported.flat())
  }

  /**
   * Flags, by needle index (or group, see the constructor), of the needles that
   * occur in `text` (a space in a needle matching any whitespace run).
   */
  find(text: string): Uint8Array {
    const found = new Uint8Array(this.flags)
    this.findInto(text, found)
    return found
  }

  /**
   * {@link find} into `found` (at least {@link flags} long), which is
   * or-ed into, not cleared: flags of needles that occur are set to 1.
   */
  findInto(text: string, found: Uint8Array): void {
    const columnOf = this.#columnOf
    const table = this.#table
    let row = 0
    for (let i = 0; i < text.length; i = (i + 1) | 0) {
      row = table[row + columnOf[text.charCodeAt(i)]]
      if (row < 0) {
        row = ~row
        this.#report(row, found)
      }
    }
  }

  #report(row: number, found: Uint8Array): void {
    const state = row / this.#columns
    const outIds = this.#outIds
    const to = this.#outStart[state + 1]
    for (let k = this.#outStart[state]; k < to; k++) found[outIds[k]] = 1
  }
}
