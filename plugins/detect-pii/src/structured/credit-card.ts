import type { Detection } from '../pii-types.js'
import { hasContext } from './context.js'
import { passesLuhn } from './luhn.js'
import { matchesOf } from './matches.js'

// 13–19 digits, either plain or in groups split by single spaces or dashes.
const CANDIDATE = /(?<![\d-])\d{4}(?:[ -]?\d{2,7}){1,4}(?![\d])/g
const CARD_CONTEXT = /\b(card|visa|master ?card|amex|american express|discover|credit|debit|cc|pan)\b/i

/** Issuer ranges (IIN prefixes) and lengths of the major card networks. */
function isKnownIssuer(d: string): boolean {
  const n = d.length
  const p2 = Number(d.slice(0, 2))
  const p3 = Number(d.slice(0, 3))
  const p4 = Number(d.slice(0, 4))
  const p6 = Number(d.slice(0, 6))
  if (d[0] === '4') return n === 13 || n === 16 || n === 19 // Visa
  if (p2 >= 51 && p2 <= 55) return n === 16 // Mastercard
  if (p4 >= 2221 && p4 <= 2720) return n === 16 // Mastercard 2-series
  if (p2 === 34 || p2 === 37) return n === 15 // American Express
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19 // Discover
  if (p6 >= 622126 && p6 <= 622925) return n >= 16 && n <= 19 // Discover / UnionPay co-brand
  if (p2 === 62) return n >= 16 && n <= 19 // UnionPay
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19 // JCB
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39 || p3 === 309) return n >= 14 && n <= 19 // Diners
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 12 && n <= 19 // Maestro
  if (p4 >= 2200 && p4 <= 2204) return n === 16 // Mir
  return false
}

/** Finds payment card numbers: known issuer range and length, valid Luhn check digit. */
export function findCreditCards(text: string): Detection[] {
  const out: Detection[] = []
  for (const m of matchesOf(CANDIDATE, text)) {
    const raw = m[0]
    // Mixed separators ("1234 5678-9012") are not how card numbers are written.
    if (raw.includes(' ') && raw.includes('-')) continue
    const digits = raw.replace(/[ -]/g, '')
    if (digits.length < 13 || digits.length > 19) continue
    if (!isKnownIssuer(digits) || !passesLuhn(digits)) continue
    if (/^(\d)\1+$/.test(digits)) continue
    const end = m.index + raw.length
    const score = hasContext(text, m.index, end, CARD_CONTEXT, 50, 20) ? 1 : 0.9
    out.push({ type: 'CREDIT_CARD', start: m.index, end, score })
  }
  return out
}
