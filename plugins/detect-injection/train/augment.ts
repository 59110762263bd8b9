/**
 * Augmented tool-output rows for the tool model: known attacks from the
 * training part planted inside benign carriers of each kind a tool returns
 * (code, SQL, API JSON, tables, e-mails, web pages and plain documents), and
 * the same carriers with a benign sentence planted the same way as
 * negatives. The model then sees the same attack wording in every kind of
 * container, and the container's own structure (a comment marker, a JSON
 * field, a table cell) on both sides of the label, so structure alone does
 * not score.
 *
 * Every augmented row remembers the source groups of its carrier and its
 * payload, so a leave-one-source-out fold drops the augmented rows built
 * from the group it leaves out (no leak through augmentation). The rows
 * only ever train; they are never scored in calibration or eval. Built only
 * from the rows passed in (the training part), deterministically from a seed.
 */
import { seededRandom } from '@gov/core/testing'
import type { Row } from './dataset.js'

/** Kinds of tool output the augmentation builds. */
export const TOOL_KINDS = ['code', 'sql', 'api-json', 'table', 'email', 'web-page', 'document'] as const
export type ToolKind = (typeof TOOL_KINDS)[number]

/** An augmented row and the source groups it was built from. */
export interface AugmentedRow extends Row {
  readonly groups: readonly string[]
  readonly kind: ToolKind
}

type Random = () => number
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]

/** The carrier kind of a training row, by its source, or undefined when it carries nothing useful. */
function carrierKind(row: Row): ToolKind | undefined {
  const s = row.source
  if (row.label !== 0) return undefined
  if (s === 'constructed:code' || s === 'humaneval') return 'code'
  if (s === 'spider:sql' || s === 'sqleval:sql') return 'sql'
  if (s === 'constructed:api-json' || s === 'injecagent:simulated-response') return 'api-json'
  if (s === 'constructed:table') return 'table'
  if (s === 'agentdojo:workspace-inbox') return 'email'
  if (s === 'constructed:owasp' || s === 'constructed:tldr') return 'web-page'
  if (s === 'constructed:xquad') return 'document'
  return undefined
}

/**
 * Attacks to plant: short direct positives that are an instruction with a
 * goal (override triggers with a task, jailbreak templates with an
 * instruction, persuasion prompts), not long role-play jailbreaks or
 * adversarial-suffix gibberish, which a tool output rarely carries.
 */
const PAYLOAD_SOURCES = [
  'tasktracker:override+goal',
  'spikee:jailbreak+instruction',
  'spikee:standalone',
  'fuzzyai:pap',
]

function isPayload(row: Row): boolean {
  return (
    row.channel === 'direct' &&
    row.label === 1 &&
    PAYLOAD_SOURCES.includes(row.source) &&
    row.text.length >= 20 &&
    row.text.length <= 500
  )
}

/** Benign sentences to plant as negatives: sentences of benign documents and questions. */
function benignSentences(
  rows: readonly Row[],
  group: (row: Row) => string,
): { text: string; group: string }[] {
  const out: { text: string; group: string }[] = []
  for (const row of rows) {
    if (row.label !== 0) continue
    if (
      row.source !== 'constructed:xquad' &&
      row.source !== 'constructed:owasp' &&
      row.source !== 'xquad:question'
    )
      continue
    for (const s of row.text.split(/(?<=[.!?])\s+/)) {
      if (s.length >= 30 && s.length <= 300 && !/[{}<>|]/.test(s))
        out.push({ text: s.trim(), group: group(row) })
    }
  }
  return out
}

const COMMENT: Record<'hash' | 'slash' | 'dash', (s: string) => string> = {
  hash: (s) =>
    s
      .split('\n')
      .map((l) => `# ${l}`)
      .join('\n'),
  slash: (s) =>
    s
      .split('\n')
      .map((l) => `// ${l}`)
      .join('\n'),
  dash: (s) =>
    s
      .split('\n')
      .map((l) => `-- ${l}`)
      .join('\n'),
}

function insertAtLine(carrier: string, line: string, random: Random): string {
  const lines = carrier.split('\n')
  const at = Math.floor(random() * (lines.length + 1))
  lines.splice(at, 0, line)
  return lines.join('\n')
}

function plantInCode(carrier: string, payload: string, random: Random): string {
  const pythonish = /\bdef |\bimport |^\s*#/m.test(carrier) || !/[;{}]/.test(carrier)
  const r = random()
  if (r < 0.45) return insertAtLine(carrier, (pythonish ? COMMENT.hash : COMMENT.slash)(payload), random)
  if (r < 0.7 && pythonish) return insertAtLine(carrier, `"""\n${payload}\n"""`, random)
  if (r < 0.7) return insertAtLine(carrier, `/* ${payload} */`, random)
  const quoted = JSON.stringify(payload.replace(/\s+/g, ' '))
  return insertAtLine(carrier, pythonish ? `message = ${quoted}` : `const message = ${quoted};`, random)
}

function plantInSql(carrier: string, payload: string, random: Random): string {
  if (random() < 0.6) return insertAtLine(carrier, COMMENT.dash(payload), random)
  return `${carrier.replace(/;\s*$/, '')} /* ${payload} */;`
}

const JSON_FIELDS = ['note', 'description', 'comment', 'message', 'bio', 'review', 'summary', 'title']

function plantInJson(carrier: string, payload: string, random: Random): string {
  let value: unknown
  try {
    value = JSON.parse(carrier)
  } catch {
    return `${carrier}\n${JSON.stringify({ [pick(random, JSON_FIELDS)]: payload })}`
  }
  // Collect the objects; plant into an existing string field or a new one.
  const objects: Record<string, unknown>[] = []
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') {
      objects.push(v as Record<string, unknown>)
      Object.values(v).forEach(walk)
    }
  }
  walk(value)
  if (objects.length === 0) return JSON.stringify({ data: value, [pick(random, JSON_FIELDS)]: payload })
  const target = pick(random, objects)
  const strings = Object.keys(target).filter((k) => typeof target[k] === 'string')
  if (strings.length > 0 && random() < 0.5) {
    const k = pick(random, strings)
    target[k] = `${target[k]} ${payload}`
  } else target[pick(random, JSON_FIELDS)] = payload
  return random() < 0.5 ? JSON.stringify(value) : JSON.stringify(value, null, 2)
}

function plantInTable(carrier: string, payload: string, random: Random): string {
  const lines = carrier.split('\n')
  const flat = payload.replace(/\s+/g, ' ')
  const markdown = lines.some((l) => l.trim().startsWith('|'))
  const header = lines.find((l) => l.trim()) ?? ''
  const cells = Math.max(2, (markdown ? header.split('|').length - 2 : header.split(',').length) || 2)
  const others = Array.from({ length: cells - 1 }, () => String(Math.round(random() * 1000) / 10))
  const row = markdown
    ? `| ${[flat.replace(/\|/g, '/'), ...others].join(' | ')} |`
    : [`"${flat.replace(/"/g, '""')}"`, ...others].join(',')
  const at = 1 + Math.floor(random() * Math.max(1, lines.length - 1))
  lines.splice(Math.min(at, lines.length), 0, row)
  return lines.join('\n')
}

const NAMES = ['Alex Moreno', 'Priya Shah', 'Jonas Berg', 'Mei Lin', 'Sam Okafor', 'Lea Novak']
const SUBJECTS = ['Quarterly update', 'Re: meeting notes', 'Invoice 2291', 'Trip itinerary', 'Team offsite']

function asEmail(body: string, random: Random): string {
  const from = pick(random, NAMES)
  const user = from.toLowerCase().replace(' ', '.')
  return `From: ${from} <${user}@example.com>\nTo: me@example.com\nSubject: ${pick(random, SUBJECTS)}\n\n${body}\n\nBest,\n${from.split(' ')[0]}`
}

function plantInProse(carrier: string, payload: string, random: Random): string {
  const parts = carrier.split(/(?<=[.!?])\s+/)
  const at = Math.floor(random() * (parts.length + 1))
  parts.splice(at, 0, payload)
  return parts.join(' ')
}

function plantInWebPage(carrier: string, payload: string, random: Random): string {
  const r = random()
  if (r < 0.35) return `<html><body><article><p>${carrier}</p><!-- ${payload} --></article></body></html>`
  if (r < 0.6) return `<html><body><p>${carrier}</p><div style="display:none">${payload}</div></body></html>`
  return plantInProse(carrier, payload, random)
}

/** Plant `payload` inside `carrier` the way a tool output of `kind` would carry it. */
export function plant(kind: ToolKind, carrier: string, payload: string, random: Random): string {
  switch (kind) {
    case 'code':
      return plantInCode(carrier, payload, random)
    case 'sql':
      return plantInSql(carrier, payload, random)
    case 'api-json':
      return plantInJson(carrier, payload, random)
    case 'table':
      return plantInTable(carrier, payload, random)
    case 'email':
      return plantInProse(carrier, payload, random)
    case 'web-page':
      return plantInWebPage(carrier, payload, random)
    case 'document':
      return plantInProse(carrier, payload, random)
  }
}

/**
 * For each kind, `perKind` positives (an attack planted in a carrier) and as
 * many negatives (a benign sentence planted the same way, or the carrier
 * alone). E-mails are built from document paragraphs with headers when the
 * training part holds few real ones. Carriers over 1,500 characters are cut
 * at a line break, so a planted attack is not diluted beyond one model window.
 */
export function augmentToolRows(
  rows: readonly Row[],
  group: (row: Row) => string,
  perKind = 300,
  seed = 20_261_124,
): AugmentedRow[] {
  const random = seededRandom(seed)
  const carriers = new Map<ToolKind, Row[]>()
  for (const row of rows) {
    const kind = carrierKind(row)
    if (!kind) continue
    const list = carriers.get(kind) ?? []
    list.push(row)
    carriers.set(kind, list)
  }
  // E-mails: the few real ones plus document paragraphs with e-mail headers.
  const emails = [...(carriers.get('email') ?? [])]
  const documents = carriers.get('document') ?? []
  const payloads = rows.filter(isPayload)
  const sentences = benignSentences(rows, group)
  if (payloads.length === 0 || sentences.length === 0) return []
  const cut = (text: string) => {
    if (text.length <= 1500) return text
    const at = text.lastIndexOf('\n', 1500)
    return text.slice(0, at > 200 ? at : 1500)
  }
  const out: AugmentedRow[] = []
  for (const kind of TOOL_KINDS) {
    const pool = kind === 'email' ? emails.concat(documents) : (carriers.get(kind) ?? [])
    if (pool.length === 0) continue
    for (let n = 0; n < perKind; n++) {
      for (const label of [1, 0] as const) {
        const carrierRow = pick(random, pool)
        const carrier = cut(carrierRow.text)
        const fromDocument = kind === 'email' && carrierRow.source === 'constructed:xquad'
        let payload: string | undefined
        const groups = [group(carrierRow)]
        if (label === 1) {
          const attack = pick(random, payloads)
          payload = attack.text
          groups.push(group(attack))
        } else if (random() < 0.8) {
          const sentence = pick(random, sentences)
          payload = sentence.text
          groups.push(sentence.group)
        }
        let text = payload === undefined ? carrier : plant(kind, carrier, payload, random)
        if (fromDocument) text = asEmail(text, random)
        out.push({ text, label, source: `augmented:${kind}`, channel: 'tool', groups, kind })
      }
    }
  }
  return out
}
