import type { Token } from './tokenize.js'

/**
 * Marks the words of a text that sit in code: fenced blocks, inline
 * `backticks`, URLs, SQL statements and lines that read as source code.
 * Identifiers there ("Products ORDER BY Id DESC", `UserName`, `import Flask`)
 * are never person, place or organisation names. Work is one pass over the
 * text plus one bounded regular expression per line.
 */

// Upper-case SQL words; two distinct ones on a line make it a statement (prose rarely shouts two).
const SQL_WORDS = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'JOIN',
  'ORDER',
  'GROUP',
  'BY',
  'INSERT',
  'INTO',
  'VALUES',
  'UPDATE',
  'DELETE',
  'CREATE',
  'TABLE',
  'ALTER',
  'DROP',
  'DESC',
  'ASC',
  'LIMIT',
  'HAVING',
  'DISTINCT',
  'INNER',
  'LEFT',
  'OUTER',
  'UNION',
  'WITH',
  'AS',
  'ON',
  'AND',
  'NOT',
  'NULL',
  'COUNT',
])
const SQL_WORD = /\b[A-Z]{2,8}\b/g
const TWO_CAPITALS = /[A-Z]{2}/
// A line that opens like source code, or ends like a statement or block.
const CODE_START =
  /^\s*(?:import\s|from\s+\S+\s+import\s|def\s|class\s+\w+[(:{]|function\s|const\s|let\s|var\s|return\s|public\s|private\s|protected\s|static\s|#include|package\s|func\s|fn\s|if\s*\(|for\s*\(|while\s*\(|\}|@\w+\(|<\/?[a-zA-Z][\w-]*[\s>])/
const CODE_END = /[;{}]\s*$|\)\s*:\s*$|=>\s*\{?\s*$/
const ASSIGNMENT = /^\s*[\w.[\]"']+\s*(?:[+\-*/]?=|:=)\s*\S/
const INLINE = /`[^`\n]+`|\bhttps?:\/\/\S+|\bwww\.\S+|\b[\w.-]+\/[\w./-]+/g

/** Character ranges [start, end) of code in `text`, in order. */
export function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = []
  let fenced = false
  let lineStart = 0
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart)
    if (lineEnd < 0) lineEnd = text.length
    const line = text.slice(lineStart, lineEnd)
    const fence = /^\s*(?:```|~~~)/.test(line)
    if (fence || fenced || isCodeLine(line)) ranges.push([lineStart, lineEnd])
    else if (mayHaveInline(line))
      for (const m of line.matchAll(INLINE))
        ranges.push([lineStart + m.index, lineStart + m.index + m[0].length])
    if (fence) fenced = !fenced
    lineStart = lineEnd + 1
  }
  return ranges
}

/**
 * False when {@link INLINE} cannot match the line: each of its forms holds a backtick, a slash or "www.".
 * Ordinary prose has none, and the slash form alone costs a try at every word.
 */
export function mayHaveInline(line: string): boolean {
  return line.includes('/') || line.includes('`') || line.includes('www.')
}

/** True for the characters `\s` matches (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13)
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/**
 * False when {@link CODE_END} cannot match the line: each of its forms ends in ";", "{", "}", ":" or ">"
 * before trailing white space. Saves the engine a try at every character of a prose line.
 */
export function mayEndAsCode(line: string): boolean {
  let k = line.length - 1
  while (k >= 0 && isSpace(line.charCodeAt(k))) k--
  if (k < 0) return false
  const c = line.charCodeAt(k)
  return c === 59 || c === 123 || c === 125 || c === 58 || c === 62
}

function isCodeLine(line: string): boolean {
  if (line.length === 0) return false
  if (CODE_START.test(line) || (mayEndAsCode(line) && CODE_END.test(line)) || ASSIGNMENT.test(line))
    return true
  // Every SQL word is two or more ASCII capitals in a row: most prose lines have none.
  if (!TWO_CAPITALS.test(line)) return false
  let sql = 0
  let seen = ''
  for (const m of line.matchAll(SQL_WORD)) {
    if (!SQL_WORDS.has(m[0]) || seen.includes(`|${m[0]}|`)) continue
    seen += `|${m[0]}|`
    if (++sql >= 2) return true
  }
  return false
}

/** One flag per token: 1 when the token lies in a code range. */
export function codeTokens(text: string, tokens: readonly Token[]): Uint8Array | undefined {
  const ranges = codeRanges(text)
  if (ranges.length === 0) return undefined
  const skip = new Uint8Array(tokens.length)
  let r = 0
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]
    while (r < ranges.length && ranges[r][1] <= t.start) r++
    if (r < ranges.length && ranges[r][0] <= t.start) skip[i] = 1
  }
  return skip
}
