import type { MarkingStrength } from './marking-list.js'

/**
 * Scores a confidentiality marking found in text by where and how it is
 * written. A marking stamped on a document — a header or footer line, a line
 * of its own, a "Classification:" label, capitals, "this memo is confidential"
 * — scores high; the same word asked about ("is this confidential?"), quoted
 * or discussed ("what does 'internal use only' mean") scores low.
 */

const BASE: Record<MarkingStrength, number> = { phrase: 0.6, word: 0.3, ambiguous: 0.1 }
/** An ambiguous word never passes a sensible threshold unless it is a heading or a label. */
const AMBIGUOUS_CAP = 0.4

const LABEL_BEFORE =
  /(classification|classified(?: as)?|marking|sensitivity|label|security level|protective marking|status|klassifizierung|einstufung|clasificaci[oó]n|niveau)\s*[:=\-–—]?\s*$/i
const LABEL_AFTER = /^\s*[:\-–—|/\]）)]/
const DECORATION = /[\s*_#=~|[\](){}<>:;.,!/\\"'`«»‹›–—-]+/g
const LABEL_WORDS =
  /\b(classification|classified|document|marking|label|sensitivity|status|level|security|page|of|data|notice|\d+)\b/gi
const STATEMENT =
  /\b(this|these|the following|the attached|attached|the enclosed|enclosed|all|its|everything)\b[^.?!\n]{0,50}?\b(is|are|contains?|remains?|stays?|marked|classified|considered|labell?ed|kept)\s+((an?|the|strictly|highly|as|only|be|treated as)\s+)*$/i
const KEEP_STATEMENT =
  /\b(keep|treat|handle|treated)\s+(this|it|these|them|all of this|everything)\s+(as\s+)?((strictly|highly)\s+)?$/i
const QUESTION_START =
  /^\s*(what|how|why|when|where|which|who|can|could|should|would|is|are|does|do|did|may|will|shall)\b/i
const META_WORDS =
  /\b(what|how|why|define|definition|meaning|means|mean|word|term|terms|spell|translate|translation|synonyms?|difference|explain|example|examples|template|called)\b/i
const QUOTES = `"'\`“”‘’«»„`
/** How far to look for the ends of a line; longer lines are cut, so a huge one-line text stays linear. */
const LINE_REACH = 400

/**
 * Bounds of the line holding `[start, end)`, looking at most {@link LINE_REACH}
 * characters each way; `newline` is the offset of the line break after it, or -1 at the end of the text.
 */
function lineBounds(
  text: string,
  start: number,
  end: number,
): { lineStart: number; lineEnd: number; newline: number } {
  const from = Math.max(0, start - LINE_REACH)
  const back = text.slice(from, start).lastIndexOf('\n')
  const lineStart = back >= 0 ? from + back + 1 : from
  const to = Math.min(text.length, end + LINE_REACH)
  const ahead = text.slice(end, to).indexOf('\n')
  const lineEnd = ahead >= 0 ? end + ahead : to
  return { lineStart, lineEnd, newline: lineEnd < text.length ? lineEnd : -1 }
}

/** Context around a marking, computed once. */
interface MarkingContext {
  readonly slice: string
  readonly line: string
  readonly before: string
  readonly after: string
  readonly sentenceBefore: string
  readonly sentenceEndsWithQuestion: boolean
}

/** True when `text[from, to)` holds no visible character; stops at the first one. */
function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return false
  }
  return true
}

/** The sentence punctuation that closes the sentence holding `end`, or '' when none within reach. */
function sentenceEnd(text: string, end: number): string {
  const limit = Math.min(text.length, end + 200)
  for (let i = end; i < limit; i++) {
    const char = text[i]
    if (char === '?' || char === '!' || char === '\n') return char
    if (char === '.' && (i + 1 >= text.length || /\s/.test(text[i + 1]))) return char
  }
  return ''
}

function contextOf(text: string, start: number, end: number): MarkingContext {
  const { lineStart, lineEnd } = lineBounds(text, start, end)
  const before = text.slice(lineStart, start)
  const tail = before.slice(-120)
  const sentenceBefore = tail.slice(
    Math.max(tail.lastIndexOf('. '), tail.lastIndexOf('? '), tail.lastIndexOf('! ')) + 1,
  )
  return {
    slice: text.slice(start, end),
    line: text.slice(lineStart, lineEnd),
    before,
    after: text.slice(end, lineEnd),
    sentenceBefore,
    sentenceEndsWithQuestion: sentenceEnd(text, end) === '?',
  }
}

/** True when the match is written in capitals and long enough not to be an acronym. */
function isShouted(slice: string): boolean {
  const upper = slice.toUpperCase()
  return upper !== slice.toLowerCase() && slice === upper && slice.replace(/[^\p{L}]/gu, '').length >= 4
}

/** True when the line holds the marking and nothing but decoration and label words. */
function standsAlone(context: MarkingContext): boolean {
  const rest = `${context.before} ${context.after}`.replace(LABEL_WORDS, ' ').replace(DECORATION, '')
  return rest.length === 0
}

/** True when the marking is on the first or last visible line of a text of several lines. */
function isHeaderOrFooter(text: string, start: number, end: number): boolean {
  const { lineStart, newline } = lineBounds(text, start, end)
  if (newline < 0 && lineStart === 0) return false
  const first = isBlank(text, 0, lineStart)
  const last = newline < 0 || isBlank(text, newline, text.length)
  return first !== last
}

function isQuoted(text: string, start: number, end: number): boolean {
  return start > 0 && end < text.length && QUOTES.includes(text[start - 1]) && QUOTES.includes(text[end])
}

/** Score 0..1 of a marking of `strength` at `[start, end)` of `text`. */
export function scoreMarking(text: string, start: number, end: number, strength: MarkingStrength): number {
  const context = contextOf(text, start, end)
  let score = BASE[strength]
  const alone = standsAlone(context)
  const labelled = LABEL_BEFORE.test(context.before)
  // "CONFIDENTIAL: …", "[INTERNAL] …": the marking opens the line as a tag.
  const leadsLine = /^[\s[(（*_#]*$/.test(context.before) && LABEL_AFTER.test(context.after)
  if (isShouted(context.slice)) score += 0.3
  if (alone) score += 0.35
  if (isHeaderOrFooter(text, start, end)) score += 0.15
  if (labelled) score += 0.3
  if (leadsLine) score += 0.25
  if (STATEMENT.test(context.sentenceBefore) || KEEP_STATEMENT.test(context.sentenceBefore)) score += 0.3
  if (!alone && !labelled) {
    if (context.sentenceEndsWithQuestion || QUESTION_START.test(context.sentenceBefore)) score -= 0.35
    if (META_WORDS.test(context.sentenceBefore)) score -= 0.25
  }
  if (isQuoted(text, start, end)) score -= 0.3
  if (strength === 'ambiguous' && !alone && !labelled && !leadsLine) score = Math.min(score, AMBIGUOUS_CAP)
  return Math.round(Math.min(1, Math.max(0, score)) * 100) / 100
}
