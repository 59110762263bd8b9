import type { IncomingHttpHeaders } from 'node:http'

/** A header of the caller's request as one string (repeated headers joined as HTTP does). */
export function headerValue(incoming: IncomingHttpHeaders, name: string): string | undefined {
  const value = incoming[name]
  if (value === undefined) return undefined
  return Array.isArray(value) ? value.join(', ') : value
}

/** Copy the named caller headers that are present into `target`. */
export function passHeaders(
  incoming: IncomingHttpHeaders,
  names: readonly string[],
  target: Record<string, string>,
) {
  for (const name of names) {
    const value = headerValue(incoming, name)
    if (value !== undefined) target[name] = value
  }
}
