import type { Detection } from '../pii-types.js'
import { hasContext } from './context.js'
import { matchesOf } from './matches.js'

const CANDIDATE = /(?<![\d-])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\d-])/g
const SSN_CONTEXT = /\b(ssn|ssns|social security|social sec|ss#|ss no|taxpayer|tin)\b/i
// Numbers the SSA published or that appear in advertising; never issued to anyone.
const KNOWN_INVALID = new Set(['078051120', '219099999', '123456789'])

/** True when area, group and serial follow the SSA rules (no 000/666/9xx area, no 00 group, no 0000 serial). */
export function isValidSsn(area: string, group: string, serial: string): boolean {
  if (area === '000' || area === '666' || area[0] === '9') return false
  if (group === '00' || serial === '0000') return false
  const all = area + group + serial
  if (/^(\d)\1+$/.test(all) || KNOWN_INVALID.has(all)) return false
  return true
}

/**
 * Finds US social security numbers. Dashed or spaced numbers count on their
 * own; nine bare digits only next to a word such as "SSN".
 */
export function findUsSsns(text: string): Detection[] {
  const out: Detection[] = []
  for (const m of matchesOf(CANDIDATE, text)) {
    if (!isValidSsn(m[1], m[3], m[4])) continue
    const end = m.index + m[0].length
    const context = hasContext(text, m.index, end, SSN_CONTEXT, 50)
    if (!m[2] && !context) continue
    out.push({ type: 'US_SSN', start: m.index, end, score: context ? 0.95 : 0.85 })
  }
  return out
}
