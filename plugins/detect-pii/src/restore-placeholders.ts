import type { TextPart } from '@gov/core'
import { PLACEHOLDER, type PlaceholderMap } from './placeholder-map.js'

/**
 * Puts the original values back where the model's answer repeats a
 * placeholder. In JSON argument text the value is JSON-string-escaped, so a
 * name with a quote or a line break keeps the arguments valid JSON.
 * Unknown placeholders stay as they are. Returns the number replaced.
 */
export async function restorePart(part: TextPart, map: PlaceholderMap): Promise<number> {
  const text = part.text
  if (!text.includes('<')) return 0
  let out = ''
  let cursor = 0
  let restored = 0
  for (const m of text.matchAll(PLACEHOLDER)) {
    const value = await map.valueOf(m[0])
    if (value === undefined) continue
    const replacement = part.kind === 'tool_arguments' ? JSON.stringify(value).slice(1, -1) : value
    out += text.slice(cursor, m.index) + replacement
    cursor = m.index + m[0].length
    restored++
  }
  if (restored) part.text = out + text.slice(cursor)
  return restored
}
