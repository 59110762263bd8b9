import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import canonicalize from 'canonicalize'
import { hashRecord, sealRecords } from '../../src/audit/hash-chain.js'
import { canonicalRecordJson, numberJson } from '../../src/audit/record-json.js'
import type { AuditRecord } from '../../src/storage/store.js'
import { callEntryOf } from './audit-fixtures.js'

const random = seededRandom(20_261_124)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
const int = (n: number) => Math.floor(random() * n)

const CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  'é',
  '€',
  '\u2028',
  '😀',
  '<',
  '/',
]
function text(): string {
  let out = ''
  for (let i = int(12); i > 0; i--) out += pick(CHARS)
  return out
}

function number(): number {
  return pick([
    () => int(1000),
    () => -int(1_000_000),
    () => random() * 1e6,
    () => (random() - 0.5) * 1e-9,
    () => 1e21 * random(),
    () => -0,
    () => Number.MAX_SAFE_INTEGER,
    () => Math.round(random() * 1e6) / 1000,
  ])()
}

/** A random JSON value (objects with random keys, including ones that sort unusually). */
function json(depth: number): unknown {
  const kind = depth > 3 ? int(4) : int(6)
  if (kind === 0) return text()
  if (kind === 1) return number()
  if (kind === 2) return pick([true, false, null])
  if (kind === 3) return pick(['', 'allowed', 'request', 'gpt-4o-mini'])
  if (kind === 4) return Array.from({ length: int(4) }, () => json(depth + 1))
  const out: Record<string, unknown> = {}
  for (let i = int(6); i > 0; i--)
    out[pick(['b', 'a', 'B', 'é', '10', '9', '', 'a_b', 'aB', text()])] = json(depth + 1)
  return out
}

/** A call record as call-entry.ts builds it, with random values (sometimes a missing or extra key). */
function callRecord(): Record<string, unknown> {
  const decisions = Array.from({ length: int(4) }, () => ({
    step: pick(['detect_pii', 'dedupe', text()]),
    phase: pick(['request', 'response', 'tool_call']),
    verdict: pick(['continue', 'block', 'respond']),
    code: pick([null, 'pii_found', text()]),
    enforced: random() < 0.5,
    error: random() < 0.2,
    ms: number(),
  }))
  const findings = Array.from({ length: int(3) }, () => ({
    step: text(),
    phase: 'request',
    type: pick(['EMAIL', text()]),
    level: pick(['public', 'internal', 'confidential']),
    count: int(9) + 1,
  }))
  const record: Record<string, unknown> = {
    seq: int(1e6) + 1,
    id: crypto.randomUUID(),
    time: new Date(int(2e12)).toISOString(),
    kind: pick(['call', 'admin']),
    actor: `agent:${text()}`,
    action: 'gateway.call',
    outcome: pick(['allowed', 'blocked', 'observed', 'error']),
    status: pick([200, 403, 502]),
    agent_id: pick([null, text()]),
    session_id: pick([null, text()]),
    pipeline_id: pick([null, 'p-1']),
    pipeline_version: pick([null, int(9)]),
    request_id: pick([null, crypto.randomUUID()]),
    token_id: pick([null, crypto.randomUUID()]),
    classification: pick(['public', 'confidential', null]),
    detail: {
      vendor: pick(['openai', 'anthropic']),
      model: pick([null, 'gpt-4o-mini', text()]),
      mode: pick([null, 'enforce', 'observe']),
      chain: pick([null, 'preset:standard']),
      request_sha256: pick([null, createHash('sha256').update(text()).digest('hex')]),
      provider_request_id: pick([null, 'req_abc123', text()]),
      duration_ms: number(),
      steps_run: int(12),
      decisions,
      findings,
    },
    prev_hash: createHash('sha256').update(text()).digest('hex'),
  }
  if (random() < 0.5) record.hash = createHash('sha256').update(text()).digest('hex')
  // Shapes that are not the known ones: a key missing, one more, a value left undefined, any JSON.
  const twist = int(8)
  const detail = record.detail as Record<string, unknown>
  if (twist === 0) delete record.token_id
  if (twist === 1) record.extra = json(0)
  if (twist === 2) detail.chain = undefined
  if (twist === 3) detail.other = json(0)
  if (twist === 4) record.detail = json(0)
  const decision = decisions[0] as Record<string, unknown> | undefined
  if (twist === 5 && decision) delete decision.code
  // A call recorded before provider_request_id existed.
  if (twist === 6) delete detail.provider_request_id
  return record
}

/** Both serialisers' answer: the text, or the fact that it threw. */
function outcome(serialise: () => string | undefined): string {
  try {
    return `ok ${serialise()}`
  } catch {
    return 'throws'
  }
}

describe('canonicalRecordJson (audit records)', () => {
  it('writes the same bytes as canonicalize for 5 000 random call records', () => {
    for (let i = 0; i < 5000; i++) {
      const record = callRecord()
      assert.equal(canonicalRecordJson(record), canonicalize(record), JSON.stringify(record))
    }
  })

  it('writes the same bytes as canonicalize for 5 000 random JSON values', () => {
    for (let i = 0; i < 5000; i++) {
      const value = json(0)
      assert.equal(canonicalRecordJson(value), canonicalize(value), JSON.stringify(value))
    }
  })

  it('leaves out the omitted top-level key exactly as removing it first would', () => {
    for (let i = 0; i < 2000; i++) {
      const record = callRecord()
      const { hash: _hash, ...rest } = record
      assert.equal(canonicalRecordJson(record, 'hash'), canonicalize(rest))
    }
  })

  it('writes repeating names (agents, steps, models…) as canonicalize does on every record, cached or not', () => {
    const names = [
      'bench',
      'a"b',
      'back\\slash',
      'nul\u0000',
      'line\u2028',
      'é€😀',
      '',
      'lone \ud800',
      'x'.repeat(200),
    ]
    // More distinct names than the cache holds, then the first ones again.
    for (let i = 0; i < 5000; i++) names.push(`agent-${i}`)
    for (let round = 0; round < 2; round++) {
      for (const name of round === 0 ? names : [...names.slice(0, 20), ...names.slice(-20)]) {
        const record = callRecord()
        record.actor = `agent:${name}`
        record.agent_id = name
        const detail = record.detail as Record<string, unknown>
        if (typeof detail === 'object' && detail !== null) detail.model = name
        assert.equal(
          outcome(() => canonicalRecordJson(record)),
          outcome(() => canonicalize(record)),
          JSON.stringify(name),
        )
      }
    }
    assert.equal(
      canonicalRecordJson({ ...callRecord(), agent_id: 'bench' }).includes('"agent_id":"bench"'),
      true,
    )
  })

  it('writes strings and numbers as canonicalize does at the edges of the plain-ASCII path', () => {
    // Printable ASCII without quote or backslash is written in quotes directly; anything else by JSON.stringify.
    const strings = [
      '',
      ' ',
      '~',
      '\u007f',
      '\u001f',
      '"',
      '\\',
      'a"b',
      'a\\b',
      '\t',
      'é',
      '\u2028',
      '\ud83d\ude00',
      'x'.repeat(128),
      `${'x'.repeat(127)}"`,
      'x'.repeat(129),
      `${'x'.repeat(129)}"`,
      '2026-11-25T09:00:00.000Z',
      'f'.repeat(64),
    ]
    for (let c = 0; c < 0x100; c++) strings.push(`id-${String.fromCharCode(c)}-x`)
    const numbers = [
      0,
      -0,
      1,
      -1,
      0.1,
      1e21,
      1e-7,
      123.456,
      2 ** 53,
      -(2 ** 31),
      5e-324,
      1.7976931348623157e308,
    ]
    for (const text of strings) {
      const record = { id: text, time: text, detail: { request_sha256: text, model: text } }
      assert.equal(canonicalRecordJson(record), canonicalize(record), JSON.stringify(text))
    }
    for (const n of numbers) {
      const record = { seq: n, status: n, detail: { duration_ms: n, steps_run: n } }
      assert.equal(canonicalRecordJson(record), canonicalize(record), String(n))
    }
  })

  it('writes milliseconds to the microsecond, and any other number, as String does', () => {
    const random = seededRandom(8785)
    const numbers: number[] = [0, -0, 0.001, -0.001, 0.0005, 0.0015, 1e-7, 0.1 + 0.2, 1e21, 5e-324]
    numbers.push(
      999_999_999_999.999,
      -999_999_999_999.999,
      999_999_999_999_999.9,
      1e12,
      1e15,
      123_456_789_012.345,
    )
    // Every thousandth from -100 to 1 000 ms, then thousandths up to ±1e12 and other doubles at random.
    for (let n = -100_000; n <= 1_000_000; n++) numbers.push(n / 1000)
    for (let i = 0; i < 50_000; i++) {
      numbers.push(Math.floor((random() - 0.5) * 2e15) / 1000)
      numbers.push(Math.round(random() * 1e6) / 1000 + Math.round(random() * 1e6) / 1000)
      numbers.push(random() * 1000, Math.round(random() * 1e9) / 1e6, (random() - 0.5) * 1e30)
    }
    let mismatches = 0
    for (const n of numbers) if (numberJson(n) !== String(n)) mismatches++
    assert.equal(mismatches, 0)
    for (const n of [0.001, 1.5, 2.25, 12.345, 0.12]) assert.equal(numberJson(n), String(n))
  })

  it('tells a known key set from the same keys with one not enumerable', () => {
    const record = callRecord()
    const detail = record.detail as Record<string, unknown>
    if (typeof detail === 'object' && detail !== null && 'vendor' in detail) {
      // The same number of keys as a known detail, but `vendor` hidden and another key listed.
      const vendor = detail.vendor
      delete detail.vendor
      detail.zzz = 1
      Object.defineProperty(detail, 'vendor', { value: vendor, enumerable: false })
    }
    Object.defineProperty(record, 'hash', { value: 'h', enumerable: false })
    record.other = 2
    assert.equal(canonicalRecordJson(record), canonicalize(record))
    assert.equal(canonicalRecordJson(record, 'hash'), canonicalize(record))
  })

  it('gives canonicalize its edge cases: toJSON, holes, undefined, symbols, functions; and throws where it throws', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = { back: cyclic }
    // Deeper than the fast path goes: canonicalize takes over.
    let deep: unknown = 1
    for (let i = 0; i < 70; i++) deep = [deep, { i }]
    // biome-ignore lint/suspicious/noSparseArray: a hole is the case under test
    const sparse = [1, , 3]
    const cases: unknown[] = [
      { when: new Date(0), n: 1 },
      { toJSON: () => ({ z: 1, a: 2 }) },
      sparse,
      [undefined, Symbol('s'), () => 1],
      { a: undefined, b: Symbol('s'), c: () => 1, d: 1 },
      { text: 'lone \ud800 surrogate' },
      { 'key \udc00': 1 },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      cyclic,
      { big: 1n },
      undefined,
      'top-level string',
      -0,
      deep,
    ]
    for (const [i, value] of cases.entries()) {
      assert.equal(
        outcome(() => canonicalRecordJson(value)),
        outcome(() => {
          const text = canonicalize(value)
          if (text === undefined) throw new TypeError('no JSON form')
          return text
        }),
        `case ${i}`,
      )
    }
  })

  it('hashRecord hashes the canonical JSON of the record without its hash, and seals as before', () => {
    for (let i = 0; i < 500; i++) {
      const record = callRecord()
      const { hash: _hash, ...rest } = record
      const expected = createHash('sha256')
        .update(canonicalize(rest) as string)
        .digest('hex')
      assert.equal(hashRecord(record as unknown as AuditRecord), expected)
    }
    const [sealed] = sealRecords(undefined, [callEntryOf()])
    const { hash, ...content } = sealed!
    assert.equal(
      hash,
      createHash('sha256')
        .update(canonicalize(content) as string)
        .digest('hex'),
    )
    assert.deepEqual(Object.keys(sealed!).slice(0, 1), ['seq'])
    assert.deepEqual(Object.keys(sealed!).slice(-2), ['prev_hash', 'hash'])
  })
})
