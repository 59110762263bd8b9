/**
 * What every store kind accepts. PostgreSQL refuses NUL in `text` and `jsonb`
 * and lone UTF-16 surrogates in `jsonb`; the memory store and JavaScript take
 * both. Values are checked against the strictest kind before they are stored,
 * so the same input is refused the same way (400) on every kind instead of
 * failing (500) on PostgreSQL only.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** True when some store kind cannot hold `text`. */
export function isUnstorable(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text)
}

/**
 * The JSON-pointer path of the first string (value or object key) in `value`
 * that some store cannot hold, or undefined when every store can.
 */
export function findUnstorable(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isUnstorable(value) ? path || '/' : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], `${path}/${i}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
      if (isUnstorable(key)) return at
      const found = findUnstorable(item, at)
      if (found !== undefined) return found
    }
  }
  return undefined
}
