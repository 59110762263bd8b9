import { isIPv6 } from 'node:net'
import type { Detection } from '../pii-types.js'
import { matchesOf } from './matches.js'

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const IPV4 = new RegExp(`(?<![\\d.\\w])${OCTET}(?:\\.${OCTET}){3}(?!\\d|\\.\\d)`, 'g')
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![\w:])/g
const VERSION_BEFORE = /(?:\bv|version|release|build)\s*$/i

/** Finds IPv4 addresses (each octet 0–255, not part of a longer dotted number) and valid IPv6 addresses. */
export function findIpAddresses(text: string): Detection[] {
  const out: Detection[] = []
  if (text.includes('.')) {
    for (const m of matchesOf(IPV4, text)) {
      if (VERSION_BEFORE.test(text.slice(Math.max(0, m.index - 10), m.index))) continue
      out.push({ type: 'IP_ADDRESS', start: m.index, end: m.index + m[0].length, score: 0.9 })
    }
  }
  if (text.includes(':')) {
    for (const m of matchesOf(IPV6, text)) {
      const raw = m[0]
      if (!isIPv6(raw)) continue
      const groups = raw.split(':').filter((g) => g.length > 0).length
      // Full 8-group form is unambiguous; compressed forms need a few groups to be more than "a::b".
      const full = !raw.includes('::')
      if (!full && groups < 3) continue
      out.push({ type: 'IP_ADDRESS', start: m.index, end: m.index + raw.length, score: full ? 0.9 : 0.75 })
    }
  }
  return out
}
