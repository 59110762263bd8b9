/**
 * Does a sentence belong to the document around it? An instruction planted in
 * an email ("Analyze the trend of electric car sales") shares no content words
 * with the rest of the email; a question in an FAQ page shares many with the
 * answer below it. The detector uses this to weigh per-segment tool rules.
 */

const CONTENT_WORD = /[\p{L}][\p{L}\p{N}'-]{3,}/gu
const STOPWORDS = new Set(
  (
    'about above after again also always answer another anything because been before being below between both ' +
    'cannot come could does doing down during each else even every from further have having here into just ' +
    'know like make many more most much must need never only other over please really reply response same ' +
    'should show some such tell than that their them then there these they this those through today under until ' +
    'very want were what when where which while will with within without would your yours message output text ' +
    'write give provide help using into best good time'
  ).split(' '),
)

/**
 * Share of the segment's content words that also occur elsewhere in the text
 * (undefined when too few words). `asciiLower`, when the caller has it, is
 * `text.toLowerCase()` of a text of printable ASCII, tabs and line breaks:
 * then nothing is copied (the same answer, see {@link occursOutside}).
 */
export function contextOverlap(
  text: string,
  segmentStart: number,
  segmentEnd: number,
  asciiLower?: string,
): number | undefined {
  const segment = asciiLower
    ? asciiLower.slice(segmentStart, segmentEnd)
    : text.slice(segmentStart, segmentEnd).toLowerCase()
  const words = (segment.match(CONTENT_WORD) ?? []).filter((w) => !STOPWORDS.has(w))
  const unique = [...new Set(words)]
  if (unique.length < 2) return undefined
  const rest = asciiLower
    ? undefined
    : `${text.slice(0, segmentStart)} ${text.slice(segmentEnd)}`.toLowerCase()
  const restLength = rest ? rest.trim().length : trimmedRestLength(text, segmentStart, segmentEnd)
  if (restLength < 40) return undefined
  let shared = 0
  for (const w of unique) {
    // Compare stems so "schedule" matches "scheduled" and "backup" matches "backups".
    const stem = w.length > 5 ? w.slice(0, w.length - 2) : w
    if (rest ? rest.includes(stem) : occursOutside(asciiLower as string, stem, segmentStart, segmentEnd))
      shared++
  }
  return shared / unique.length
}

/**
 * Whether `stem` occurs in `lower` before `start` or from `end` on: in "before +
 * ' ' + after", as `includes` sees it (a stem has no space, so no occurrence
 * spans the joint). If the first occurrence is not wholly before `start`, no
 * occurrence is, and only the part from `end` is left to search.
 */
function occursOutside(lower: string, stem: string, start: number, end: number): boolean {
  const first = lower.indexOf(stem)
  if (first < 0) return false
  return first + stem.length <= start || first >= end || lower.indexOf(stem, end) >= 0
}

/** `trim().length` of "before + ' ' + after" for ASCII text (spaces, tabs and line breaks), without building it. */
function trimmedRestLength(text: string, start: number, end: number): number {
  const length = start + 1 + text.length - end
  const at = (k: number) =>
    k < start ? text.charCodeAt(k) : k === start ? 32 : text.charCodeAt(end + k - start - 1)
  const space = (c: number) => c === 32 || c === 9 || c === 10 || c === 13
  let from = 0
  while (from < length && space(at(from))) from++
  let to = length
  while (to > from && space(at(to - 1))) to--
  return to - from
}
