import { AhoCorasick } from './aho-corasick.js'
import { type FoldedText, foldChar, foldTerm, foldText } from './fold-text.js'
import { isWholeWord } from './word-boundary.js'

/** A phrase hit in original offsets, for the entries (of any caller type) that share the phrase. */
export interface PhraseHit<E> {
  readonly start: number
  readonly end: number
  readonly entries: readonly E[]
}

/**
 * Many phrases compiled into one automaton. Phrases are folded (case, accents,
 * separators) and must match whole words in the original text; entries whose
 * phrases fold to the same text share one hit.
 */
export class PhraseMatcher<E> {
  readonly #automaton: AhoCorasick
  readonly #entries: E[][] = []

  /**
   * `phraseOf(entry)` lists the phrases of an entry (a term and its aliases).
   * `dense: false` keeps the automaton compact (fold first, then match) whatever its size, for tests.
   */
  constructor(
    entries: readonly E[],
    phrasesOf: (entry: E) => readonly string[],
    options: { readonly dense?: boolean } = {},
  ) {
    const ids = new Map<string, number>()
    for (const entry of entries) {
      for (const phrase of phrasesOf(entry)) {
        const folded = foldTerm(phrase)
        if (!folded) continue
        let id = ids.get(folded)
        if (id === undefined) {
          id = ids.size
          ids.set(folded, id)
          this.#entries.push([])
        }
        if (!this.#entries[id].includes(entry)) this.#entries[id].push(entry)
      }
    }
    this.#automaton = new AhoCorasick([...ids.keys()], options)
  }

  /** True when no phrase was compiled. */
  get empty(): boolean {
    return this.#entries.length === 0
  }

  /**
   * Every whole-word hit in `original`, overlapping ones included, by start.
   * The text is folded on the fly while it is matched (no folded copy); its
   * offsets are folded only when something matched.
   */
  find(original: string): PhraseHit<E>[] {
    const hits: PhraseHit<E>[] = []
    if (this.empty) return hits
    let folded: FoldedText | undefined
    const onMatch = (id: number, foldedStart: number, foldedEnd: number) => {
      folded ??= foldText(original)
      const start = folded.starts[foldedStart]
      const end = folded.ends[foldedEnd - 1]
      if (isWholeWord(original, start, end)) hits.push({ start, end, entries: this.#entries[id] })
    }
    if (!this.#automaton.scanFolded(original, foldChar, onMatch)) {
      folded = foldText(original)
      this.#automaton.scan(folded.text, onMatch)
    }
    return hits.sort((a, b) => a.start - b.start || b.end - a.end)
  }
}

/** Keep the leftmost, then longest, of overlapping spans. Input sorted by start, longest first. */
export function pickLeftmostLongest<T extends { start: number; end: number }>(spans: readonly T[]): T[] {
  const picked: T[] = []
  let reach = -1
  for (const span of spans) {
    if (span.start >= reach) {
      picked.push(span)
      reach = span.end
    }
  }
  return picked
}
