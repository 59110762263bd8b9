import { GovError } from '@gov/core'

/**
 * Deepest nesting a pipeline definition in YAML may have. The yaml parser's
 * cost grows steeply with nesting: 1,000 levels of `[` take ~0.4 s, and 5,000
 * compact `- - - …` levels make V8's regexp compiler run out of memory, which
 * ends the process. A real definition nests fewer than 10 levels.
 */
export const MAX_YAML_DEPTH = 64

function tooDeep(maxDepth: number): GovError {
  return new GovError(
    'invalid_yaml',
    `pipeline definition nests deeper than ${maxDepth} levels (or is indented more than ${2 * maxDepth} columns)`,
    400,
    { limit: maxDepth },
  )
}

/** Characters after which a quote opens a quoted scalar (elsewhere it is an apostrophe in plain text). */
const SCALAR_START = new Set([':', '-', '?', '[', '{', ',', '!', '&'])

/**
 * Refuse YAML text that nests deeper than `maxDepth` before the parser sees
 * it, in one linear pass: flow collections (`[`, `{`) are counted outside
 * quoted scalars and comments, block nesting is measured by a line's
 * indentation plus its compact indicators (`- `, `? `, `: `), two columns per
 * level. It errs on the side of refusing: a block scalar with more than
 * `maxDepth` unclosed brackets or very deep indentation is refused too.
 */
export function checkYamlDepth(text: string, maxDepth = MAX_YAML_DEPTH): void {
  let flow = 0
  let quote: string | undefined
  for (const line of text.split('\n')) {
    let i = 0
    if (flow === 0 && quote === undefined) {
      while (line[i] === ' ') i++
      while (
        (line[i] === '-' || line[i] === '?' || line[i] === ':') &&
        (line[i + 1] === ' ' || i + 1 === line.length)
      ) {
        i++
        while (line[i] === ' ') i++
      }
      if (i > 2 * maxDepth) throw tooDeep(maxDepth)
    }
    for (; i < line.length; i++) {
      const ch = line[i] as string
      if (quote !== undefined) {
        if (quote === '"' && ch === '\\') i++
        else if (ch === quote) {
          if (quote === "'" && line[i + 1] === "'") i++
          else quote = undefined
        }
        continue
      }
      const before = i === 0 ? ' ' : (line[i - 1] as string)
      if ((ch === '"' || ch === "'") && (before === ' ' || SCALAR_START.has(before))) quote = ch
      else if (ch === '#' && before === ' ') break
      else if (ch === '[' || ch === '{') {
        if (++flow > maxDepth) throw tooDeep(maxDepth)
      } else if ((ch === ']' || ch === '}') && flow > 0) flow--
    }
  }
}
