import { personalLocations } from './location-policy.js'
import type { Detection, PiiType } from './pii-types.js'

/**
 * Organisations are personal data only beside a person's data (issue 8, 0.6.9). A firm, body or brand named on
 * its own ("Our parcels go out with the USPS every Monday.", "Clarity Over Jargon") is no one's personal data;
 * in a text that also holds a person's name, contact detail, identifier or a place that locates a person it is
 * kept ("Anna Berg works at Siemens, anna.berg@example.no"): there it is the person's employer, bank, school or
 * clinic, and narrows down who they are.
 *
 * The test is the whole text, not a distance as for places (`location-policy.ts`): a name and a place in one
 * sentence are often unrelated ("John drove to New York"), but an organisation in a text about a person is
 * theirs wherever it stands ("Anna Berg joined in 2019. … Siemens pays her salary."), and the rules that leave
 * characters of exercises and subjects of knowledge questions alone also ask whether anything else in the whole
 * text is personal data.
 */

/** Finding types that are a person's data on their own. An IP address names a machine as often as a person. */
const PERSONAL: ReadonlySet<PiiType> = new Set([
  'PERSON',
  'EMAIL_ADDRESS',
  'PHONE_NUMBER',
  'STREET_ADDRESS',
  'DATE_OF_BIRTH',
  'CREDIT_CARD',
  'IBAN_CODE',
  'US_SSN',
])

/**
 * The detections without the organisations when nothing else in the text is a person's data; otherwise
 * unchanged. `detections` are sorted by start and final (every other rule applied). With `locations: 'all'`
 * a place counts only where it locates a person (the `personal` rule); with `personal` every kept place does.
 */
export function personalOrganizations(
  text: string,
  detections: readonly Detection[],
  locations: 'personal' | 'all',
): Detection[] {
  if (!detections.some((d) => d.type === 'ORGANIZATION')) return [...detections]
  if (detections.some((d) => PERSONAL.has(d.type))) return [...detections]
  if (detections.some((d) => d.type === 'LOCATION')) {
    const places = locations === 'personal' ? detections : personalLocations(text, detections)
    if (places.some((d) => d.type === 'LOCATION')) return [...detections]
  }
  return detections.filter((d) => d.type !== 'ORGANIZATION')
}
