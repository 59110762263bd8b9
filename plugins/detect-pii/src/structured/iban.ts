import type { Detection } from '../pii-types.js'

/** IBAN length per country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
}

// Country code, check digits, then alphanumerics optionally grouped by single spaces.
const CANDIDATE = /(?<![\p{L}\p{N}])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/gu

/** True when the compact IBAN passes the ISO 7064 mod-97 check. */
export function passesMod97(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4)
  let rest = 0
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0)
    const value = code >= 65 ? code - 55 : code - 48
    rest = value >= 10 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97
  }
  return rest === 1
}

/** Finds IBANs: known country, that country's length, valid mod-97 check digits; any case, grouped or not. */
export function findIbans(text: string): Detection[] {
  const out: Detection[] = []
  const re = CANDIDATE
  re.lastIndex = 0
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const raw = m[0]
    // Resume right after the country code, so an IBAN the candidate swallowed ("… 00 or GB82…") is still seen.
    re.lastIndex = m.index + 2
    const country = raw.slice(0, 2).toUpperCase()
    const length = IBAN_LENGTHS[country]
    if (!length) continue
    // The candidate may run into the following word; cut it at the country's length.
    let taken = 0
    let end = 0
    while (end < raw.length && taken < length) {
      if (raw[end] !== ' ') taken++
      end++
    }
    if (taken < length) continue
    const next = text.charCodeAt(m.index + end)
    if (!Number.isNaN(next) && /[\p{L}\p{N}]/u.test(String.fromCharCode(next))) continue
    const compact = raw.slice(0, end).replace(/ /g, '').toUpperCase()
    if (!passesMod97(compact)) continue
    out.push({ type: 'IBAN_CODE', start: m.index, end: m.index + end, score: 0.95 })
    re.lastIndex = m.index + end
  }
  return out
}
