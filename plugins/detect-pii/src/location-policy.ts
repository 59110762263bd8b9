import type { Detection } from './pii-types.js'

/**
 * Places are personal data only where they locate a person. A country, region
 * or city named on its own ("What is the capital of Norway?") is geography;
 * the same city next to a name ("Anna Berg from Tromsø"), after a residence cue
 * ("I live in Leeds", "geboren in Graz") or beside other contact data is kept.
 */

/** How far (UTF-16 units, one line) a name or contact detail may be from a place to make it personal. */
const NEAR = 40
// Cue words right before a place (within the same clause) that tie it to the writer or a person.
// "You are" names the assistant's persona ("You are the Norse god Thor", "You are an ancient Egyptian scribe"), not
// where someone lives: after "you" only a verb of living or "are (located) in/at/from" counts (0.6.6).
const RESIDENCE =
  /(?:\b(?:i|we|he|she|they|who)\s+(?:\w+\s+){0,2}?(?:live[sd]?|living|reside[sd]?|grew up|moved|relocated|stay(?:ed|ing)?|am|'m|are|is|was|come|comes|came)\b|\byou\s+(?:\w+\s+){0,2}?(?:live[sd]?|living|reside[sd]?|grew up|moved|relocated|stay(?:ed|ing)?|come|comes|came)\b|\byou(?:\s+are|'re|’re|\s+were)\s+(?:(?:located|based|currently|now)\s+)*(?:in|at|from|near)\b|\bborn\b|\bhome ?town\b|\bresiden(?:ce|t)\b|\baddress\b|\bwohn\w*|\bgeboren\b|\bhabite\b|\bvivo\b|\bmoro\b|\bbor\b|\bживу\b|\bживет\b|\bживёт\b)[^.!?\n]{0,24}$/iu
const PERSONAL: ReadonlySet<Detection['type']> = new Set([
  'PERSON',
  'STREET_ADDRESS',
  'PHONE_NUMBER',
  'EMAIL_ADDRESS',
  'DATE_OF_BIRTH',
])

/** The detections without the places that locate no one; others unchanged. `detections` are sorted by start. */
export function personalLocations(text: string, detections: readonly Detection[]): Detection[] {
  if (!detections.some((d) => d.type === 'LOCATION')) return [...detections]
  const out: Detection[] = []
  for (let index = 0; index < detections.length; index++) {
    const d = detections[index]
    if (d.type !== 'LOCATION') {
      out.push(d)
      continue
    }
    // "ancient Egyptian history", "a Martian ambassador": a people's adjective before a noun, no place (0.6.6).
    if (DEMONYM.test(text.slice(d.start, d.end)) && /^ \p{Ll}/u.test(text.slice(d.end, d.end + 2))) continue
    const tie = locatesPerson(text, index, detections)
    if (tie === 'none') continue
    // A place tied only by a cue ("I am planning to visit London", "You are Thor") is masked, never refused
    // on its own: refusing needs a person or contact detail beside it (0.7.0). Nor does a place tied only to a
    // name too doubtful to refuse ("How far away is Missouri from New York?", Missouri read as a person): it
    // is no surer than that name (0.6.10).
    out.push(
      (tie === 'cue' || tie === 'weak') && d.score > CUED_PLACE_SCORE
        ? { type: d.type, start: d.start, end: d.end, score: CUED_PLACE_SCORE }
        : d,
    )
  }
  return out
}

/** One word ending like an adjective of a people or a language ("Egyptian", "Shakespearean", "Chinese", "Irish"). */
const DEMONYM = /^\p{Lu}\p{Ll}+(?:ian|ean|ese|ish)$/u

/** Highest score of a place tied to a person by a cue word alone: under the presets' `block_min_score` 0.8. */
export const CUED_PLACE_SCORE = 0.79

/**
 * `near` when a personal detection sits within {@link NEAR} on the same clause, `weak` when only names scoring
 * under {@link CUED_PLACE_SCORE} + 0.01 (the refusal score) do, `cue` when only a residence cue precedes,
 * `none` otherwise.
 */
function locatesPerson(
  text: string,
  index: number,
  all: readonly Detection[],
): 'near' | 'weak' | 'cue' | 'none' {
  const place = all[index]
  let weak = false
  // Sorted by start and never overlapping, so only neighbours within NEAR need a look.
  for (let k = index - 1; k >= 0 && place.start - all[k].end <= NEAR; k--)
    if (PERSONAL.has(all[k].type) && closeBy(text, all[k], all[k].end, place.start, NAME_THEN_PLACE)) {
      if (!doubtfulName(all[k])) return 'near'
      weak = true
    }
  for (let k = index + 1; k < all.length && all[k].start - place.end <= NEAR; k++)
    if (PERSONAL.has(all[k].type) && closeBy(text, all[k], place.end, all[k].start, PLACE_THEN_NAME)) {
      if (!doubtfulName(all[k])) return 'near'
      weak = true
    }
  if (weak) return 'weak'
  return RESIDENCE.test(text.slice(Math.max(0, place.start - 48), place.start)) ? 'cue' : 'none'
}

/** A name scoring at most {@link CUED_PLACE_SCORE}: reported and masked, too doubtful to refuse (see refusal-evidence). */
function doubtfulName(d: Detection): boolean {
  return d.type === 'PERSON' && d.score <= CUED_PLACE_SCORE
}

/**
 * True when the text between a personal detection and the place ties them in one clause. A name must be
 * tied directly ("Anna Berg from Tromsø", "Anna Berg, Tromsø", "Anna Berg (Oslo)", "Anna Berg lives in
 * Leeds"): a name merely near a place ("John drove to New York") locates no one's home.
 */
function closeBy(text: string, other: Detection, from: number, to: number, tie: RegExp): boolean {
  const between = text.slice(from, to)
  if (/[\n.!?;]/.test(between)) return false
  return other.type !== 'PERSON' || tie.test(between)
}

// Words between a name and the place that follows it when the place is where the person lives or comes from.
const NAME_THEN_PLACE =
  /^\s*(?:,|\(|(?:\w+\s+){0,2}?(?:from|of|aus|von|de|da|do|du|di|z|ze|iz|из|från|fra|lives? in|lived in|living in|resides? in|based in|born in|wohnt in|wohnhaft in|geboren in|who lives in|moved to))\s*$/iu
// Words between a place and a name that follows it ("Tromsø: Anna Berg", "Oslo, Anna Berg").
const PLACE_THEN_NAME = /^\s*[,:(]?\s*$/u
