import type { Detection } from './pii-types.js'

/**
 * Words of a function's docstring are no people (0.6.8): "def sort_numbers(numbers: str) -> str:\n    """ Input is
 * a space-delimited string … Valid choices are …", "def words_string(s): """ … words_string("Hi, my name is John")
 * == ["Hi", "my", "name", "is", "John"] """", "In this Kata, you have to sort …". A docstring describes code; its
 * capitalised words open sentences and its examples are sample data, which the tagger reads as names.
 *
 * A PERSON finding is dropped when it lies inside a triple-quoted string that opens on the line after a Python
 * `def` (or `class`) header, in a text with no e-mail address or phone number, and the docstring names no author,
 * maintainer, contact or copyright holder ("Author: Anna Berg" keeps her).
 */

/** A Python function or class header ending its line, then a triple quote opening the docstring. */
const DOCSTRING_OPEN = /^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w+[^\n]*:[ \t]*\n[ \t]*[rRuU]?("""|''')/gmu
/** Words that name a real person beside the code. */
const OWNER =
  /(?<![\p{L}\p{M}])(?:author|authors|maintainer|maintained by|written by|contact|copyright|©|@author)(?![\p{L}\p{M}])/iu

/** The detections without the PERSON findings inside a function's docstring; `found` when none. */
export function withoutDocstringWords(text: string, found: Detection[]): Detection[] {
  if (!text.includes('"""') && !text.includes("'''")) return found
  if (!found.some((d) => d.type === 'PERSON')) return found
  if (found.some((d) => d.type === 'EMAIL_ADDRESS' || d.type === 'PHONE_NUMBER')) return found
  const docstrings: [number, number][] = []
  DOCSTRING_OPEN.lastIndex = 0
  for (let m = DOCSTRING_OPEN.exec(text); m !== null; m = DOCSTRING_OPEN.exec(text)) {
    const start = m.index + m[0].length
    const end = text.indexOf(m[1], start)
    if (end < 0) break
    if (OWNER.test(text.slice(start, end))) return found
    docstrings.push([start, end])
    DOCSTRING_OPEN.lastIndex = end + 3
  }
  if (docstrings.length === 0) return found
  const inside = (d: Detection) => docstrings.some(([start, end]) => d.start >= start && d.end <= end)
  const kept = found.filter((d) => d.type !== 'PERSON' || !inside(d))
  return kept.length < found.length ? kept : found
}
