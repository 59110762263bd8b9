/**
 * Cutting complete text into the pieces of a re-chunked stream. Clients show
 * streamed text as it arrives, so a re-chunked answer should look like a real
 * stream (several small deltas), yet a long answer must not explode into
 * thousands of events.
 */

/** Target piece length for short texts; roughly what a provider sends per delta. */
const TARGET = 24
/** Upper bound of pieces per text; longer texts get proportionally longer pieces. */
const MAX_PIECES = 400

function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/**
 * Split text into word-aligned pieces of about 24 characters whose
 * concatenation is the text. A piece ends just before a whitespace that follows
 * a word once the piece is long enough; a run without whitespace is cut at four
 * times the target, never inside a surrogate pair.
 */
export function splitText(text: string): string[] {
  if (text.length === 0) return []
  const target = Math.max(TARGET, Math.ceil(text.length / MAX_PIECES))
  const hardLimit = target * 4
  const pieces: string[] = []
  let start = 0
  for (let i = 1; i < text.length; i++) {
    const length = i - start
    const code = text.charCodeAt(i)
    const atWordEnd = isWhitespace(code) && !isWhitespace(text.charCodeAt(i - 1))
    if (
      (length >= target && atWordEnd) ||
      (length >= hardLimit && !isHighSurrogate(text.charCodeAt(i - 1)))
    ) {
      pieces.push(text.slice(start, i))
      start = i
    }
  }
  pieces.push(text.slice(start))
  return pieces
}

/** Piece length of JSON fragments (tool arguments), which have few spaces to cut at. */
const FRAGMENT = 16

/**
 * Split text such as tool-call JSON into fixed-size fragments whose
 * concatenation is the text, as providers stream arguments; never inside a
 * surrogate pair.
 */
export function splitFragments(text: string): string[] {
  const size = Math.max(FRAGMENT, Math.ceil(text.length / MAX_PIECES))
  const pieces: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(start + size, text.length)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++
    pieces.push(text.slice(start, end))
    start = end
  }
  return pieces
}
