import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, seededRandom } from '@gov/core/testing'
import canonicalize from 'canonicalize'
import { bodyDigest, DIGESTED_MIN, requestKey, StringDigests } from '../src/request-key.js'

const ALPHABET = [
  'a',
  'b',
  ':',
  's',
  '1',
  ';',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  'é',
  '😀',
  '\n',
  'n',
  'd',
  '\uFFFD',
]

function text(rand: () => number): string {
  // Short strings, and long ones (the hash takes those directly).
  const length = rand() < 0.2 ? 250 + Math.floor(rand() * 20) : Math.floor(rand() * 4)
  let out = ''
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(rand() * ALPHABET.length)]
  return out
}

function value(rand: () => number, depth: number): unknown {
  const kind = Math.floor(rand() * (depth > 2 ? 4 : 6))
  switch (kind) {
    case 0:
      return text(rand)
    case 1:
      return [0, 1, -1, 1.5, 1e21, 2 ** 53, -0.25][Math.floor(rand() * 7)]
    case 2:
      return [true, false, null][Math.floor(rand() * 3)]
    case 3:
      return ['1', 'null', 'true', '', 's'][Math.floor(rand() * 5)]
    case 4:
      return Array.from({ length: Math.floor(rand() * 3) }, () => value(rand, depth + 1))
    default: {
      const out: Record<string, unknown> = {}
      for (let i = Math.floor(rand() * 3); i > 0; i--) out[text(rand) || 'k'] = value(rand, depth + 1)
      return out
    }
  }
}

/** The same value with every object's keys in another order. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered)
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reordered(x)]),
    )
  }
  return v
}

describe('dedupe request key', () => {
  it('tells bodies apart exactly as RFC 8785 canonical JSON does (random JSON values, pairs and key orders)', () => {
    const rand = seededRandom(9)
    const bodies: Record<string, unknown>[] = []
    for (let i = 0; i < 400; i++) {
      const body = { messages: value(rand, 0), x: value(rand, 1) }
      bodies.push(body)
      // A near copy: one field replaced by a fresh value (often equal when short).
      bodies.push({ ...body, x: value(rand, 1) })
      // An equal copy, keys in another order.
      bodies.push(reordered(structuredClone(body)) as Record<string, unknown>)
    }
    let equalPairs = 0
    let differentPairs = 0
    // One store of per-string digests across all bodies, as a step keeps it: same digests as without.
    const digests = new StringDigests({ max: 64, maxBytes: 1 << 20 })
    for (let i = 0; i < bodies.length; i++) {
      const a = bodies[i] as Record<string, unknown>
      const again = reordered(a) as Record<string, unknown>
      assert.equal(bodyDigest(again), bodyDigest(a))
      assert.equal(bodyDigest(structuredClone(a), new Set(), digests), bodyDigest(a))
      for (const j of [i + 1, i + 2, Math.floor(rand() * bodies.length)]) {
        const b = bodies[j % bodies.length] as Record<string, unknown>
        const same = canonicalize(a) === canonicalize(b)
        assert.equal(bodyDigest(a) === bodyDigest(b), same, `${canonicalize(a)} vs ${canonicalize(b)}`)
        same ? equalPairs++ : differentPairs++
      }
    }
    assert.ok(equalPairs > 400 && differentPairs > 1000, `${equalPairs} equal, ${differentPairs} different`)
  })

  it('is not fooled by strings that would concatenate alike', () => {
    const pairs: [unknown, unknown][] = [
      [
        ['ab', 'c'],
        ['a', 'bc'],
      ],
      [
        ['as', 'b'],
        ['a', 'sb'],
      ],
      [
        ['a]', 'b'],
        ['a', ']b'],
      ],
      [{ ab: 'c' }, { a: 'bc' }],
      ['1', 1],
      ['null', null],
      ['true', true],
      [[], {}],
      [[[]], [[], []]],
      ['\uD800', '\uFFFD'],
      ['\uD800', '\\ud800'],
      ['x'.repeat(300), `${'x'.repeat(299)}y`],
      [
        { a: 'x'.repeat(300), b: 's1:y' },
        { a: `${'x'.repeat(300)}s1:y`, b: '' },
      ],
      [
        { a: 1, b: undefined },
        { a: 1, b: null },
      ],
    ]
    for (const [a, b] of pairs) {
      assert.notEqual(bodyDigest({ v: a }), bodyDigest({ v: b }), `${String(a)} vs ${String(b)}`)
    }
    assert.equal(bodyDigest({ v: { a: 1, b: undefined } }), bodyDigest({ v: { a: 1 } }))
    assert.equal(bodyDigest({ v: -0 }), bodyDigest({ v: 0 }))
  })

  it('changes with any message of a long conversation, and only skips delivery fields', () => {
    const call = {
      requestId: 'r',
      agentId: 'agent/one',
      sessionId: undefined,
      pipelineId: 'p',
      pipelineVersion: 1,
      mode: 'enforce' as const,
      flags: new Map(),
    }
    const messages = Array.from({ length: 100 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `turn ${i} ${'lorem ipsum '.repeat(80)}`,
    }))
    const exchange = (body: Record<string, unknown>) =>
      makeExchange([{ source: 'user', text: 'x' }], { body })
    const base = requestKey(call, exchange({ model: 'm', messages }))
    assert.ok(base.startsWith('agent%2Fone:'))
    assert.equal(requestKey(call, exchange({ model: 'm', messages: structuredClone(messages) })), base)
    assert.equal(requestKey(call, exchange({ messages, model: 'm', stream: true, stream_options: {} })), base)
    for (const at of [0, 37, 99]) {
      const changed = structuredClone(messages)
      ;(changed[at] as { content: string }).content += '.'
      assert.notEqual(requestKey(call, exchange({ model: 'm', messages: changed })), base, `message ${at}`)
    }
    assert.notEqual(requestKey(call, exchange({ model: 'm', messages: messages.slice(1) })), base)
    assert.notEqual(requestKey(call, exchange({ model: 'm', messages, streamed: true })), base)
    assert.notEqual(requestKey({ ...call, agentId: 'agent/two' }, exchange({ model: 'm', messages })), base)
  })

  it('keeps the digests of 0.2.0 (one-shot and streamed hashing hash the same bytes), so stored answers still match', () => {
    // Values computed with dedupe 0.2.0 (strings of 256+ units as the digest of their encoding).
    const short = {
      model: 'gpt-4o-mini',
      stream: true,
      max_tokens: 512,
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Hello \ud800 there' },
      ],
    }
    assert.equal(bodyDigest(short, new Set(['stream'])), 'xkPl-2XpStbqkLZz2aFT0yfqGgvGX0JJTV61D1PknCg')
    // Past 16 384 units: the streamed path.
    const long = 'Long text é😀 '.repeat(3000)
    const conversation = {
      model: 'gpt-4o-mini',
      temperature: 0,
      messages: [
        { role: 'user', content: long },
        { role: 'assistant', content: long.slice(5) },
      ],
      n: [1, 2.5, null, true, false, {}],
    }
    assert.equal(bodyDigest(conversation), 'N-9c41qqHPX0Ap4CKEN_JOpbs93vl1DsL_soxGUbfS4')
    // Long strings digested: one well-formed, one with a lone surrogate (JSON-encoded before hashing).
    const mid = {
      messages: [
        { role: 'user', content: 'word '.repeat(60) },
        { role: 'user', content: `\ud800${'x'.repeat(300)}` },
      ],
    }
    assert.equal(bodyDigest(mid), 'OLesbJda6oCvVD9OwfcwIzcZJ2Hp3PozxulSyVubpX0')
    const digests = new StringDigests({ max: 8, maxBytes: 1 << 20 })
    for (const body of [short, conversation, mid, mid])
      assert.equal(bodyDigest(body, new Set(), digests), bodyDigest(body))
  })

  it('keeps one digest per long text, found again in a new string object; short strings are written out', () => {
    const digests = new StringDigests({ max: 100, maxBytes: 1 << 20 })
    const messages = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: 'user',
        content: `message ${i} ${'abc '.repeat(80 + i)}`,
      }))
    const first = bodyDigest({ messages: messages(10) }, new Set(), digests)
    assert.equal(digests.size, 10)
    // The next turn: the same ten texts as new strings (a new parse) and one more.
    const parsed = JSON.parse(JSON.stringify({ messages: messages(11) })) as Record<string, unknown>
    const second = bodyDigest(parsed, new Set(), digests)
    assert.equal(digests.size, 11)
    assert.notEqual(second, first)
    assert.equal(second, bodyDigest(parsed))
    // Below the threshold nothing is kept.
    bodyDigest({ v: 'y'.repeat(DIGESTED_MIN - 1) }, new Set(), digests)
    assert.equal(digests.size, 11)
    bodyDigest({ v: 'y'.repeat(DIGESTED_MIN) }, new Set(), digests)
    assert.equal(digests.size, 12)
  })

  it('stays bounded: at most max texts, and texts over 16 K units are hashed, not kept', () => {
    const digests = new StringDigests({ max: 5, maxBytes: 1 << 20 })
    for (let i = 0; i < 50; i++) bodyDigest({ v: `${i} ${'z'.repeat(400)}` }, new Set(), digests)
    assert.ok(digests.size <= 5, `${digests.size} texts kept`)
    const huge = 'q'.repeat(20_000)
    const before = digests.size
    assert.equal(bodyDigest({ v: huge }, new Set(), digests), bodyDigest({ v: huge }))
    assert.equal(digests.size, before)
    // A cached digest is never served for another text of the same length and samples.
    const a = `${'p'.repeat(300)}a${'p'.repeat(300)}`
    const b = `${'p'.repeat(300)}b${'p'.repeat(300)}`
    assert.notEqual(bodyDigest({ v: a }, new Set(), digests), bodyDigest({ v: b }, new Set(), digests))
    assert.equal(bodyDigest({ v: b }, new Set(), digests), bodyDigest({ v: b }))
  })
})
