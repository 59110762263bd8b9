/**
 * The kind of a tool output, guessed from its text alone (not from its
 * source name), so that the eval reports tool results by kind the same way
 * for every file: API JSON (and other structured records: Python dicts,
 * YAML), e-mail, web page, table, code, or plain document.
 */
export type ToolOutputKind = 'api-json' | 'email' | 'web-page' | 'table' | 'code' | 'document'

export const TOOL_OUTPUT_KINDS: readonly ToolOutputKind[] = [
  'api-json',
  'email',
  'web-page',
  'table',
  'code',
  'document',
]

const EMAIL_HEADER = /(^|\|)\s*(email_from|from|to|subject|cc|date|received date|sender|recipient)\s*:/gim
/** `key: value` lines of YAML-like records (AgentDojo's environments). */
const YAML_LINE = /^\s*(- )?[A-Za-z_][\w-]*:( |$)/
const HTML = /<(html|body|div|p|article|span|a|h[1-6]|ul|li|table|script|meta)\b[^>]*>/i
const CODE_LINE =
  /^\s*(def |class |import |from \S+ import|#include|function\b|const |let |var |public |private |return\b|for\s*\(|if\s*\(|while\s*\(|select\b.+\bfrom\b|insert into|create table|\}|package |using |fn |func )/im

function isTable(lines: readonly string[]): boolean {
  const body = lines.filter((l) => l.trim())
  if (body.length < 3) return false
  for (const sep of ['|', ',', '\t']) {
    const counts = body.slice(0, 20).map((l) => l.split(sep).length - 1)
    const first = counts[0]
    if (first >= 2 && counts.filter((c) => c === first).length >= Math.ceil(counts.length * 0.7)) return true
  }
  return false
}

/** The kind of `text` as a tool output. */
export function toolOutputKind(text: string): ToolOutputKind {
  const trimmed = text.trim()
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && /["']\s*:/.test(trimmed.slice(0, 400)))
    return 'api-json'
  if ((text.match(EMAIL_HEADER) ?? []).length >= 2) return 'email'
  if (HTML.test(text)) return 'web-page'
  const lines = text.split('\n')
  const filled = lines.filter((l) => l.trim())
  if (filled.length >= 3 && filled.filter((l) => YAML_LINE.test(l)).length >= filled.length * 0.5)
    return 'api-json'
  if (isTable(lines)) return 'table'
  const codeLines = lines.filter((l) => CODE_LINE.test(l) || /[;{]\s*$/.test(l)).length
  if (codeLines >= 2 && codeLines >= lines.length * 0.15) return 'code'
  if (/^#{1,3} \S/m.test(text) && lines.length >= 3) return 'web-page'
  return 'document'
}
