import type { TextPart } from '@gov/core'
import type { Detection } from './pii-types.js'
import type { PlaceholderMap } from './placeholder-map.js'

/** The value as the agent meant it: inside JSON argument text, escapes are undone. */
function plainValue(part: TextPart, raw: string): string {
  if (part.kind !== 'tool_arguments' || !raw.includes('\\')) return raw
  try {
    return JSON.parse(`"${raw}"`) as string
  } catch {
    return raw
  }
}

/**
 * Replaces each detected value of the part's text with its placeholder and
 * writes the result through to the vendor body. In JSON argument text a
 * detection that spans JSON syntax (a quote) is left alone rather than break the JSON.
 */
export async function maskPart(
  part: TextPart,
  detections: readonly Detection[],
  map: PlaceholderMap,
): Promise<void> {
  const text = part.text
  let out = ''
  let cursor = 0
  for (const d of detections) {
    const raw = text.slice(d.start, d.end)
    if (part.kind === 'tool_arguments' && raw.includes('"')) continue
    out += text.slice(cursor, d.start) + (await map.placeholderFor(d.type, plainValue(part, raw)))
    cursor = d.end
  }
  if (cursor === 0) return
  part.text = out + text.slice(cursor)
}
