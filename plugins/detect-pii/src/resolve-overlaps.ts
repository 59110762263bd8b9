import type { Detection, PiiType } from './pii-types.js'

// Validated structured values beat pattern-and-context ones, which beat names:
// an e-mail address wins over the name inside it, an address over its city.
const PRIORITY: Readonly<Record<PiiType, number>> = {
  EMAIL_ADDRESS: 5,
  CREDIT_CARD: 5,
  IBAN_CODE: 5,
  US_SSN: 5,
  IP_ADDRESS: 4,
  PHONE_NUMBER: 3,
  DATE_OF_BIRTH: 3,
  STREET_ADDRESS: 2,
  ORGANIZATION: 1,
  PERSON: 1,
  LOCATION: 1,
}

/** Keeps, among overlapping detections, the one of the stronger kind, then higher score, then longer span. */
export function resolveOverlaps(detections: readonly Detection[]): Detection[] {
  if (detections.length < 2) return [...detections]
  const ranked = [...detections].sort(
    (a, b) => PRIORITY[b.type] - PRIORITY[a.type] || b.score - a.score || b.end - b.start - (a.end - a.start),
  )
  const kept: Detection[] = []
  for (const d of ranked) {
    if (kept.every((k) => d.end <= k.start || d.start >= k.end)) kept.push(d)
  }
  return kept.sort((a, b) => a.start - b.start)
}
