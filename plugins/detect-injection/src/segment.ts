/**
 * Splitting text into the pieces the detector looks at: sentences and lines
 * (for instructions planted in tool output) and overlapping windows (so a
 * short injection inside a long document is not diluted by the rest of it).
 */
import { WHITESPACE } from './needle-index.js'

/** A piece of a text with its offsets, end exclusive. */
export interface Segment {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** 1 for the code units `/\s/` matches: trimming reads a table instead of running a pattern per character. */
const SPACE = new Uint8Array(0x10000)
for (const c of WHITESPACE) SPACE[c] = 1
/** 1 for the marks that end a sentence before whitespace. */
const MARK = new Uint8Array(0x10000)
for (const c of '.!?。！？') MARK[c.charCodeAt(0)] = 1

/**
 * Lines and sentences, trimmed, without empty ones. Cuts where
 * `/[.!?。！？]+(?=\s|$)|\n|\|/g` matches (a line break, a `|`, or a run of
 * marks followed by whitespace or the end: only a whole run can be, since a
 * shorter one is followed by a mark), scanned by hand so that no match array
 * is built per boundary (test/segment.test.ts compares it with the pattern).
 */
export function splitSentences(text: string): Segment[] {
  const out: Segment[] = []
  const n = text.length
  let from = 0
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || c === 124) {
      pushTrimmed(text, from, i, out)
      from = i + 1
    } else if (MARK[c] === 1) {
      let end = i + 1
      while (end < n && MARK[text.charCodeAt(end)] === 1) end++
      if (end === n || SPACE[text.charCodeAt(end)] === 1) {
        pushTrimmed(text, from, end, out)
        from = end
      }
      i = end - 1
    }
  }
  pushTrimmed(text, from, n, out)
  return out
}

function pushTrimmed(text: string, start: number, end: number, out: Segment[]): void {
  while (start < end && SPACE[text.charCodeAt(start)] === 1) start++
  while (end > start && SPACE[text.charCodeAt(end - 1)] === 1) end--
  if (end > start) out.push({ start, end, text: text.slice(start, end) })
}

/** Window length used by the model; texts up to {@link WINDOW_LIMIT} are scored whole. */
export const WINDOW_SIZE = 1024
const WINDOW_STRIDE = 768
export const WINDOW_LIMIT = 1536

/**
 * Overlapping windows of about {@link WINDOW_SIZE} characters, cut at
 * whitespace where possible. A text of at most {@link WINDOW_LIMIT} characters
 * is one window.
 */
export function splitWindows(text: string): Segment[] {
  if (text.length <= WINDOW_LIMIT) return [{ start: 0, end: text.length, text }]
  const out: Segment[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + WINDOW_SIZE)
    // Both searches for a space are bounded: unbounded ones made a text
    // without spaces (a long run of base64, one long word) quadratic.
    if (end < text.length) {
      for (let k = end; k > start + WINDOW_SIZE / 2; k--) {
        if (text.charCodeAt(k) === 32) {
          end = k
          break
        }
      }
    }
    out.push({ start, end, text: text.slice(start, end) })
    if (end >= text.length) break
    let next = start + WINDOW_STRIDE
    const limit = Math.min(text.length, next + 64)
    for (let k = next; k < limit; k++) {
      if (text.charCodeAt(k) === 32) {
        next = k + 1
        break
      }
    }
    start = Math.min(next, end)
  }
  return out
}
