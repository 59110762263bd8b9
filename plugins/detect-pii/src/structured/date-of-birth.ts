import type { Detection } from '../pii-types.js'
import { matchesOf } from './matches.js'

const MONTHS =
  'jan(?:uary|uar|vier|eiro)?|feb(?:ruary|ruar)?|f[ée]v(?:rier)?|m[aä]r(?:ch|z|s)?|apr(?:il)?|avr(?:il)?|may|mai|jun(?:e|i)?|juin|jul(?:y|i)?|juil(?:let)?|aug(?:ust)?|ao[uû]t|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|dec(?:ember)?|d[ée]c(?:embre)?|dez(?:ember)?|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre'
const NUMERIC = /(?<![\d./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d./-]\d|\d)/g
const ISO = /(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?(?![\d])/g
const DAY_MONTH = new RegExp(
  `(?<![\\p{L}\\d])\\d{1,2}(?:st|nd|rd|th|\\.)?\\s+(?:of\\s+)?(?:${MONTHS})\\.?,?\\s+\\d{4}(?!\\d)`,
  'giu',
)
const MONTH_DAY = new RegExp(
  `(?<![\\p{L}])(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}(?!\\d)`,
  'giu',
)
// Words that say a date is someone's birth date, in the languages the step is used with most.
const BIRTH_CONTEXT =
  /(?<![\p{L}])(born|birth|birthdate|birthday|dob|d\.o\.b|geboren|geb\.|geburtsdatum|né|née|nacimiento|naissance|nascita|nato|nata|nascimento|urodzony|urodzona)(?![\p{L}])/iu

// Every birth word above, without the word-boundary checks: a text without any of these has no date of birth.
const ANY_BIRTH_WORD =
  /born|birth|dob|d\.o\.b|geboren|geb\.|geburtsdatum|né|nacimiento|naissance|nascita|nato|nata|nascimento|urodzon/iu

function isPlausibleYear(year: number): boolean {
  return year >= 1900 && year <= 2100
}

function isDayMonth(a: number, b: number): boolean {
  // Either day/month or month/day order.
  return (a >= 1 && a <= 31 && b >= 1 && b <= 12) || (a >= 1 && a <= 12 && b >= 1 && b <= 31)
}

/** Every date in the text, as spans, before the birth-context check. */
function findDates(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = []
  for (const m of matchesOf(NUMERIC, text)) {
    const year = m[4].length === 2 ? 1900 + Number(m[4]) : Number(m[4])
    if (isDayMonth(Number(m[1]), Number(m[3])) && isPlausibleYear(year))
      spans.push({ start: m.index, end: m.index + m[0].length })
  }
  for (const m of matchesOf(ISO, text)) {
    const month = Number(m[2])
    const day = Number(m[3])
    if (isPlausibleYear(Number(m[1])) && month >= 1 && month <= 12 && day >= 1 && day <= 31)
      spans.push({ start: m.index, end: m.index + m[0].length })
  }
  for (const re of [DAY_MONTH, MONTH_DAY])
    for (const m of matchesOf(re, text)) spans.push({ start: m.index, end: m.index + m[0].length })
  return spans
}

/** Finds dates of birth: a date with a birth word ("born", "DOB", "geboren", …) shortly before it. */
export function findDatesOfBirth(text: string): Detection[] {
  if (!/\d{2}/.test(text) || !ANY_BIRTH_WORD.test(text)) return []
  const out: Detection[] = []
  for (const span of findDates(text)) {
    const before = text.slice(Math.max(0, span.start - 60), span.start)
    const after = text.slice(span.end, span.end + 20)
    if (BIRTH_CONTEXT.test(before)) out.push({ type: 'DATE_OF_BIRTH', ...span, score: 0.85 })
    else if (/^\s*\(?(born|birth|dob)\b/i.test(after))
      out.push({ type: 'DATE_OF_BIRTH', ...span, score: 0.75 })
  }
  return out
}
