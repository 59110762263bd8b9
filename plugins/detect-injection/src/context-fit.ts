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

/** Share of the segment's content words that also occur elsewhere in the text (undefined when too few words). */
export function contextOverlap(text: string, segmentStart: number, segmentEnd: number): number | undefined {
  const words = (text.slice(segmentStart, segmentEnd).toLowerCase().match(CONTENT_WORD) ?? []).filter(
    (w) => !STOPWORDS.has(w),
  )
  const unique = [...new Set(words)]
  if (unique.length < 2) return undefined
  const rest = `${text.slice(0, segmentStart)} ${text.slice(segmentEnd)}`.toLowerCase()
  if (rest.trim().length < 40) return undefined
  let shared = 0
  for (const w of unique) {
    // Compare stems so "schedule" matches "scheduled" and "backup" matches "backups".
    if (rest.includes(w.length > 5 ? w.slice(0, w.length - 2) : w)) shared++
  }
  return shared / unique.length
}
