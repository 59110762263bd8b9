import type { Detection } from './scanner.js'

/** The text that replaces a secret. Contains no quote or backslash, so it is safe inside a JSON string. */
export function redactionLabel(kind: string): string {
  return `[REDACTED:${kind}]`
}

interface Edit {
  start: number
  end: number
  label: string
}

/** Overlapping detections become one edit, labelled with the kind of the most specific rule. */
function mergeDetections(detections: readonly Detection[]): Edit[] {
  const sorted = [...detections].sort((a, b) => a.start - b.start || b.end - a.end)
  const edits: Edit[] = []
  let current: (Edit & { priority: number }) | undefined
  for (const d of sorted) {
    if (current && d.start < current.end) {
      current.end = Math.max(current.end, d.end)
      if (d.priority > current.priority) {
        current.priority = d.priority
        current.label = redactionLabel(d.kind)
      }
      continue
    }
    if (current) edits.push(current)
    current = { start: d.start, end: d.end, label: redactionLabel(d.kind), priority: d.priority }
  }
  if (current) edits.push(current)
  return edits
}

/** Applies sorted, non-overlapping edits in one pass (slicing per edit would copy the text once per secret). */
function applyEdits(text: string, edits: readonly Edit[]): string {
  const pieces: string[] = []
  let at = 0
  for (const e of edits) {
    pieces.push(text.slice(at, e.start), e.label)
    at = e.end
  }
  pieces.push(text.slice(at))
  return pieces.join('')
}

/** Replaces every detected secret with `[REDACTED:<kind>]`. */
export function redactText(text: string, detections: readonly Detection[]): string {
  return detections.length ? applyEdits(text, mergeDetections(detections)) : text
}

/** A JSON string literal's content range [start, end) and where its escape sequences sit. */
interface StringLiteral {
  start: number
  end: number
  escapes: Array<[number, number]>
}

/** String literals of a JSON text (the text is known to parse). */
function stringLiterals(text: string): StringLiteral[] {
  const literals: StringLiteral[] = []
  let i = 0
  while (i < text.length) {
    if (text[i] !== '"') {
      i++
      continue
    }
    const literal: StringLiteral = { start: i + 1, end: i + 1, escapes: [] }
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        const length = text[i + 1] === 'u' ? 6 : 2
        literal.escapes.push([i, i + length])
        i += length
      } else i++
    }
    literal.end = i
    literals.push(literal)
    i++
  }
  return literals
}

/** The escape sequence of a literal that contains `at` strictly inside it, found by binary search. */
function escapeAround(escapes: ReadonlyArray<[number, number]>, at: number): [number, number] | undefined {
  let lo = 0
  let hi = escapes.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const [from, to] = escapes[mid]
    if (at <= from) hi = mid - 1
    else if (at >= to) lo = mid + 1
    else return escapes[mid]
  }
  return undefined
}

/**
 * Cuts edits to string contents and widens them so none starts or ends inside
 * an escape sequence; undefined when an edit lies wholly outside every string.
 * Edits and literals are both sorted, so one forward walk pairs them.
 */
function editsInsideStrings(text: string, edits: readonly Edit[]): Edit[] | undefined {
  const literals = stringLiterals(text)
  const out: Edit[] = []
  let j = 0
  for (const edit of edits) {
    while (j < literals.length && literals[j].end <= edit.start) j++
    const literal = literals[j]
    if (!literal || literal.start >= edit.end) return undefined
    // A secret is one string value: whatever the match ran into past its closing quote is structure.
    let start = Math.max(edit.start, literal.start)
    let end = Math.min(edit.end, literal.end)
    start = escapeAround(literal.escapes, start)?.[0] ?? start
    end = escapeAround(literal.escapes, end)?.[1] ?? end
    if (end > start) out.push({ start, end, label: edit.label })
  }
  return out
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * Redacts secrets inside a JSON text (tool-call arguments, JSON tool results)
 * so that the result still parses: edits stay inside string literals and never
 * split an escape sequence. When that cannot hold (a secret outside any string),
 * the JSON is decoded, each string value redacted on its own, and re-encoded.
 * A text that is not JSON is redacted as plain text.
 */
export function redactJsonText(
  text: string,
  detections: readonly Detection[],
  analyze: (value: string) => readonly Detection[],
): string {
  if (!detections.length) return text
  if (!isJson(text)) return redactText(text, detections)
  const edits = editsInsideStrings(text, mergeDetections(detections))
  if (edits) {
    const redacted = applyEdits(text, edits)
    if (isJson(redacted)) return redacted
  }
  return JSON.stringify(redactJsonValue(JSON.parse(text), analyze))
}

function redactJsonValue(value: unknown, analyze: (value: string) => readonly Detection[]): unknown {
  if (typeof value === 'string') return redactText(value, analyze(value))
  if (Array.isArray(value)) return value.map((v) => redactJsonValue(v, analyze))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = redactJsonValue(v, analyze)
    return out
  }
  return value
}
