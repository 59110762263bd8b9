/**
 * Every match of the global pattern `re` in `text`, as `text.matchAll(re)`
 * gives them, without the copy of `re` that `matchAll` makes on each call
 * (for the large address patterns that copy cost more than the search). Resets
 * `re.lastIndex`, so a pattern must not be searched by two loops at once.
 */
export function* matchesOf(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++
    yield m
  }
}
