/** True when `pattern` matches within `before` characters before `start` or `after` characters after `end`. */
export function hasContext(
  text: string,
  start: number,
  end: number,
  pattern: RegExp,
  before = 40,
  after = 0,
): boolean {
  if (pattern.test(text.slice(Math.max(0, start - before), start))) return true
  return after > 0 && pattern.test(text.slice(end, end + after))
}
