/**
 * RFC 8785 canonical JSON of audit records, byte for byte what
 * `canonicalize` (digest.ts's {@link canonicalJson}) writes, without its
 * generic costs on the hot path: the record's keys, and those of a call's
 * `detail`, decisions and finding counts, have a known set, so their sorted
 * order is written once here and an object with exactly that key set is
 * written in it (no sort, no `seen` set, no per-string surrogate scan in JS).
 * Any other object sorts its keys as `canonicalize` does; anything that is not
 * plain JSON data (a `toJSON`, NaN, a lone surrogate, a cycle) is handed to
 * `canonicalize` itself, so edge cases give its answer or its error.
 *
 * `host/test/audit/record-json.test.ts` checks it against `canonicalize` on
 * random records and random JSON values.
 */
import canonicalize from 'canonicalize'

/** An audit record's keys, sorted (UTF-16 code unit order, as RFC 8785 sorts). */
const RECORD_KEYS = [
  'action',
  'actor',
  'agent_id',
  'classification',
  'detail',
  'hash',
  'id',
  'kind',
  'outcome',
  'pipeline_id',
  'pipeline_version',
  'prev_hash',
  'request_id',
  'seq',
  'session_id',
  'status',
  'time',
  'token_id',
] as const

/** Key sets whose sorted order is known (UTF-16 code unit order, as RFC 8785 sorts). */
const KNOWN_SHAPES: readonly (readonly string[])[] = [
  // An audit record, with and without its `hash`.
  RECORD_KEYS,
  RECORD_KEYS.filter((key) => key !== 'hash'),
  // A call's detail (call-entry.ts).
  [
    'chain',
    'decisions',
    'duration_ms',
    'findings',
    'mode',
    'model',
    'provider_request_id',
    'request_sha256',
    'steps_run',
    'vendor',
  ],
  // A call's detail as written before provider_request_id (any other key set sorts generically, same bytes).
  ['chain', 'decisions', 'duration_ms', 'findings', 'mode', 'model', 'request_sha256', 'steps_run', 'vendor'],
  // One decision, one finding count.
  ['code', 'enforced', 'error', 'ms', 'phase', 'step', 'verdict'],
  ['count', 'level', 'phase', 'step', 'type'],
]

interface Shape {
  readonly keys: readonly string[]
  /** `"key":` of each key, in order. */
  readonly prefixes: readonly string[]
  /** Per key: its string values repeat from record to record (see {@link REPEATING}). */
  readonly repeating: readonly boolean[]
  /** Orders of `Object.keys` seen to be this key set (records are built alike: one or two orders). */
  readonly orders: (readonly string[])[]
}

/** Most key orders remembered per shape. */
const MAX_ORDERS = 8

/**
 * Keys of the known shapes whose string values repeat from record to record
 * (names of agents, pipelines, steps, models, verdicts…), unlike ids, times
 * and hashes: their JSON text is kept in {@link repeatedJson} rather than
 * written again by `JSON.stringify` (a call into C++ each) on every record.
 */
const REPEATING = new Set([
  'action',
  'actor',
  'agent_id',
  'chain',
  'classification',
  'code',
  'kind',
  'level',
  'mode',
  'model',
  'outcome',
  'phase',
  'pipeline_id',
  'step',
  'type',
  'vendor',
  'verdict',
])

/** JSON text of repeating strings (well-formed ones only), emptied when it reaches {@link REPEATED_MAX}. */
const repeatedJson = new Map<string, string>()
const REPEATED_MAX = 4096
/** Longer strings are written each time (the cache is for names, not text). */
const REPEATED_LENGTH = 128

const SHAPES_BY_SIZE = new Map<number, Shape[]>()
for (const keys of KNOWN_SHAPES) {
  const sorted = [...keys].sort()
  if (sorted.some((k, i) => k !== keys[i])) throw new Error(`record-json: shape ${keys} is not sorted`)
  const list = SHAPES_BY_SIZE.get(keys.length) ?? []
  list.push({
    keys,
    prefixes: keys.map((k) => `${JSON.stringify(k)}:`),
    repeating: keys.map((k) => REPEATING.has(k)),
    orders: [],
  })
  SHAPES_BY_SIZE.set(keys.length, list)
}

/** `String.prototype.isWellFormed` (Node 20; not in this project's TypeScript lib). */
type WellFormed = string & { isWellFormed(): boolean }

/** Deeper than this, `canonicalize` takes over (it detects cycles). */
const MAX_DEPTH = 64

function knownShape(keys: readonly string[]): Shape | undefined {
  const candidates = SHAPES_BY_SIZE.get(keys.length)
  if (!candidates) return undefined
  // The same keys in an order seen before: element by element, no lookups.
  for (const shape of candidates) for (const order of shape.orders) if (sameOrder(order, keys)) return shape
  next: for (const shape of candidates) {
    // As many keys as Object.keys lists (own, enumerable, no repeats), each one of them: the same key set.
    for (const key of shape.keys) if (!keys.includes(key)) continue next
    if (shape.orders.length < MAX_ORDERS) shape.orders.push([...keys])
    return shape
  }
  return undefined
}

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Strings up to this long are checked in JS for needing no escape (ids, times, hashes); longer ones go to `JSON.stringify`. */
const PLAIN_MAX = 128

/**
 * True when `text` is printable ASCII without `"` or `\\`: its JSON is the text
 * in quotes (what `JSON.stringify` and `canonicalize` write), so no call into
 * C++ is needed for it. Most strings of a record are such (ids, times, hashes).
 */
function isPlain(text: string): boolean {
  if (text.length > PLAIN_MAX) return false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false
  }
  return true
}

/** A string as `canonicalize` writes it (it refuses lone surrogates). */
function stringJson(text: string): string | undefined {
  if (isPlain(text)) return `"${text}"`
  return (text as WellFormed).isWellFormed() ? JSON.stringify(text) : canonicalize(text)
}

/** {@link stringJson} of a value that repeats from record to record, from the cache when it was seen before. */
function repeatedStringJson(text: string): string | undefined {
  if (text.length > REPEATED_LENGTH) return stringJson(text)
  const known = repeatedJson.get(text)
  if (known !== undefined) return known
  if (!(text as WellFormed).isWellFormed()) return canonicalize(text)
  const json = JSON.stringify(text)
  if (repeatedJson.size >= REPEATED_MAX) repeatedJson.clear()
  repeatedJson.set(text, json)
  return json
}

/** Fraction digits of thousandths, trailing zeros dropped: index `n` is `n` / 1000 after the point. */
const THOUSANDTHS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0').replace(/0+$/, ''))

/**
 * `String(value)` of a finite number, without V8's shortest-digits search for
 * the usual audit numbers, milliseconds to the microsecond (`roundMs`, 20 or
 * so per record of a call through preset `standard`): that search was half
 * the time of writing such a record. When `value` is exactly the double of a
 * decimal `n / 1000` (`n / 1000 === value`: IEEE division rounds the exact
 * quotient to the nearest double, as parsing the decimal does) of at most 15
 * significant digits, that decimal is the shortest text that reads back as
 * `value` (two decimals of up to 15 digits never share a double), so it is
 * what `String` writes; from 0.001 up to 1e12 it is written without exponent,
 * as `String` does. Anything else goes to `String`.
 */
export function numberJson(value: number): string {
  if (Number.isInteger(value)) return String(value)
  const n = Math.round(value * 1000)
  if (n / 1000 !== value || n > 999_999_999_999_999 || n < -999_999_999_999_999) return String(value)
  const magnitude = n < 0 ? -n : n
  const fraction = magnitude % 1000
  return `${n < 0 ? '-' : ''}${(magnitude - fraction) / 1000}.${THOUSANDTHS[fraction]}`
}

function valueJson(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return stringJson(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      // A finite number's JSON is its ECMAScript string (RFC 8785 §3.2.2.3): the same text, no call into C++.
      return Number.isFinite(value) ? numberJson(value) : canonicalize(value)
    case 'object':
      if (value === null) return 'null'
      return objectJson(value, depth)
    default:
      return canonicalize(value)
  }
}

function objectJson(value: object, depth: number, omit?: string): string | undefined {
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    if (omit === undefined) return canonicalize(value)
    // As `const { hash, ...rest } = record` would: own enumerable keys, no toJSON from a prototype.
    const { [omit]: _omitted, ...rest } = value as Record<string, unknown>
    return canonicalize(rest)
  }
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ','
      // canonicalize maps over the array and joins: a hole, or a value with no JSON text, writes nothing.
      if (!(i in value)) continue
      const item = value[i]
      out += item === undefined || typeof item === 'symbol' ? 'null' : (valueJson(item, depth + 1) ?? '')
    }
    return `${out}]`
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  const shape = knownShape(keys)
  let out = '{'
  let first = true
  if (shape) {
    for (let i = 0; i < shape.keys.length; i++) {
      const key = shape.keys[i]!
      if (key === omit) continue
      const item = record[key]
      if (item === undefined || typeof item === 'symbol') continue
      if (!first) out += ','
      first = false
      out +=
        shape.prefixes[i]! +
        (typeof item === 'string' && shape.repeating[i]
          ? repeatedStringJson(item)
          : valueJson(item, depth + 1))
    }
  } else {
    keys.sort()
    for (const key of keys) {
      if (key === omit) continue
      const item = record[key]
      if (item === undefined || typeof item === 'symbol') continue
      if (!first) out += ','
      first = false
      out += `${stringJson(key)}:${valueJson(item, depth + 1)}`
    }
  }
  return `${out}}`
}

/**
 * RFC 8785 canonical JSON of `value`, the same bytes as `canonicalize(value)`;
 * throws where it throws (NaN, Infinity, lone surrogates, cycles). With
 * `omit`, a top-level object is written without that key (a record's `hash`),
 * as if it had been removed first.
 */
export function canonicalRecordJson(value: unknown, omit?: string): string {
  const text =
    omit !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)
      ? objectJson(value, 0, omit)
      : valueJson(value, 0)
  if (text === undefined) throw new TypeError('value has no JSON form')
  return text
}
