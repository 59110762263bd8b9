import type { CountryCode } from 'libphonenumber-js/max'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import type { Detection } from '../pii-types.js'
import { hasContext } from './context.js'
import { matchesOf } from './matches.js'

// Digits with the separators people write phone numbers with, an optional leading + or 00 and extension.
const CANDIDATE =
  /(?<![\w+.\-/])(?:\+|00)?\(?\d[\d().\- /\t]{5,22}\d(?:[ \t]?(?:x|ext\.?|#)[ \t]?\d{1,6})?(?![\w@])/g
const PHONE_CONTEXT =
  /\b(phone|tel|telephone|mobile|cell|call|fax|contact|whatsapp|sms|dial|landline|handy|telefon|téléphone|tél|móvil|cellulare|office|reach me)\b/i
const PHONE_CONTEXT_AFTER = /^\W{0,3}(office|fax|mobile|cell|home|work|phone)\b/i
const DATE_SHAPE = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})$/
const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}$/
const ISO_DATE_START = /^\d{4}-\d{2}-\d{2}/

/** Country codes libphonenumber knows, for validating the `phone_regions` setting. */
export function isPhoneRegion(code: string): boolean {
  return parsePhoneNumberFromString('+1 202 555 0100', code as CountryCode) !== undefined
}

/** Shape checks that drop runs of digits that are not written like phone numbers. */
function looksLikePhone(raw: string): boolean {
  const main = raw.replace(/(?:x|ext\.?|#)[ \t]?\d+$/, '')
  const digits = main.replace(/\D/g, '')
  if (digits.length < 7 || digits.length > 15) return false
  if (DATE_SHAPE.test(main) || DOTTED_QUAD.test(main) || ISO_DATE_START.test(main)) return false
  if (/[ \t]{2}|[.\-/]{2}/.test(main)) return false
  const opens = main.split('(').length
  if (opens !== main.split(')').length || opens > 2) return false
  // "1 2 3 4 5 6 7" is a list of numbers, not a phone number.
  const singles = main.split(/[^\d]+/).filter((g) => g.length === 1).length
  return singles <= 2
}

/**
 * Finds phone numbers. International numbers (`+` or `00`) are validated with
 * libphonenumber's full metadata; national numbers are tried against each of
 * `regions` in order. Unvalidated digit runs count only next to a word such as
 * "phone" or "fax", with a lower score.
 */
export function findPhoneNumbers(text: string, regions: readonly string[]): Detection[] {
  const out: Detection[] = []
  for (const m of matchesOf(CANDIDATE, text)) {
    let raw = m[0]
    // The class admits a trailing ")" or separator run; trim to the last digit or extension.
    raw = raw.replace(/[\s(]+$/, '')
    if (!looksLikePhone(raw)) continue
    const start = m.index
    const end = start + raw.length
    // "14:56" after the digits: a time, not a phone number.
    if (text[end] === ':' && /\d/.test(text[end + 1] ?? '')) continue
    const score = scorePhone(raw, regions, text, start, end)
    if (score > 0) out.push({ type: 'PHONE_NUMBER', start, end, score })
  }
  return out
}

function scorePhone(
  raw: string,
  regions: readonly string[],
  text: string,
  start: number,
  end: number,
): number {
  const context =
    hasContext(text, start, end, PHONE_CONTEXT, 40) || PHONE_CONTEXT_AFTER.test(text.slice(end, end + 12))
  const international = raw.startsWith('+') || raw.startsWith('00')
  if (international) {
    const parsed = parsePhoneNumberFromString(raw.startsWith('00') ? `+${raw.slice(2)}` : raw)
    if (parsed?.isValid()) return 0.95
    if (parsed?.isPossible()) return context ? 0.75 : 0.6
    return context ? 0.5 : 0
  }
  // Without separators or context, nine digits valid somewhere are as likely an account or licence number.
  const formatted = /[ .\-()]/.test(raw)
  // Short national numbers are valid somewhere in most regions' plans, so length counts too.
  const digits = raw.replace(/(?:x|ext\.?|#)[ \t]?\d+$/, '').replace(/\D/g, '').length
  for (const region of regions) {
    const parsed = parsePhoneNumberFromString(raw, region as CountryCode)
    if (!parsed?.isValid()) continue
    if (!formatted && !context) return 0.45
    return (digits >= 10 ? 0.8 : digits >= 8 ? 0.6 : 0.45) + (context ? 0.15 : 0)
  }
  if (context) return 0.6
  return formatted ? 0.4 : 0.2
}
