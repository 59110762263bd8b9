/**
 * `jsonKeysIn` / `jsonKeysOf` / `bytesMeanValue`: when the caller's (or the
 * provider's) JSON bytes may be sent on in place of gov's own serialisation of
 * what it parsed. They may only when they mean exactly that value to any reader.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { bytesMeanValue, jsonKeysIn, jsonKeysOf, parseJsonCounted } from '../../src/http/body.js'

const TRICKY = [
  '',
  ':',
  '"',
  '\\',
  '\\"',
  '{',
  '}',
  '[',
  ']',
  ',',
  ' : ',
  '\\u0022',
  'é',
  '🎉',
  '\n',
  '\\\\":',
]

function randomValue(next: () => number, depth: number): unknown {
  const pick = next()
  if (depth <= 0 || pick < 0.3) {
    const kind = Math.floor(next() * 5)
    if (kind === 0) return TRICKY[Math.floor(next() * TRICKY.length)]
    if (kind === 1) return Math.round(next() * 1e6) / 100
    if (kind === 2) return next() < 0.5
    if (kind === 3) return null
    return `${TRICKY[Math.floor(next() * TRICKY.length)]}x${Math.floor(next() * 100)}`
  }
  if (pick < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth - 1))
  const out: Record<string, unknown> = {}
  const n = Math.floor(next() * 5)
  for (let i = 0; i < n; i++)
    out[`${TRICKY[Math.floor(next() * TRICKY.length)]}k${Math.floor(next() * 6)}`] = randomValue(
      next,
      depth - 1,
    )
  return out
}

/** Serialise with odd but legal whitespace around every token (before colons too). */
function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.map(spaced).join(' ,\n')} ]`
  if (typeof value === 'object' && value !== null)
    return `{\r\n${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)} \t: ${spaced(v)}`)
      .join(' , ')} }`
  return JSON.stringify(value)
}

describe('JSON key counts', () => {
  it('the text and the parsed value agree on random values, compact and spaced', () => {
    const next = seededRandom(20261125)
    for (let i = 0; i < 3000; i++) {
      const value = randomValue(next, 5)
      for (const text of [JSON.stringify(value), spaced(value)]) {
        const bytes = Buffer.from(text)
        const keys = jsonKeysIn(bytes, 64)
        assert.equal(keys, jsonKeysOf(JSON.parse(text)), text)
        assert.equal(bytesMeanValue(bytes, keys, JSON.parse(text)), true, text)
      }
    }
  })

  it('counts keys after strings with escapes anywhere, short and long (the inline scan and indexOf)', () => {
    // Raw characters; JSON.stringify writes them escaped (\", \\, \u0001) or as they are (:).
    const specials = ['"', '\\', '\\"', '\u0001', ':', '\\\\"', '"\\']
    for (let length = 0; length <= 120; length++) {
      for (const special of specials) {
        for (const at of [0, Math.max(0, length - 3), Math.max(0, length - 1), length]) {
          const text = `${'x'.repeat(at)}${special}${'y'.repeat(Math.max(0, length - at))}`
          const value = { [text]: text, k: [text, { [text]: 1, z: text }], last: 'x' }
          for (const json of [JSON.stringify(value), spaced(value)]) {
            const bytes = Buffer.from(json)
            assert.equal(jsonKeysIn(bytes, 64), 5, json)
          }
        }
      }
    }
    // Unterminated strings end at the buffer's end, however long.
    for (const length of [0, 1, 47, 48, 49, 50, 200]) {
      assert.equal(jsonKeysIn(Buffer.from(`{"a":1,"${'x'.repeat(length)}`), 64), 1)
      assert.equal(jsonKeysIn(Buffer.from(`{"a":1,"${'x'.repeat(length)}\\`), 64), 1)
    }
  })

  it('a repeated key anywhere makes the bytes differ from the value', () => {
    for (const text of [
      '{"model":"a","model":"b"}',
      '{"messages":[{"role":"user","content":"x","content":"y"}]}',
      '{"a":{"b":1,"c":{"d":[{"e":1,"e":1}]}}}',
      '{"__proto__":1,"__proto__":2}',
      '{"a":1, "a" :1}',
    ]) {
      const bytes = Buffer.from(text)
      const { value, keys } = parseJsonCounted(bytes, true, 64)
      assert.equal(bytesMeanValue(bytes, keys, value), false, text)
    }
  })

  it('keys spelled alike in different objects, or escaped differently, are not repeats', () => {
    for (const text of ['{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}', '{"\\u0061":1,"b":"\\"a\\":"}']) {
      const bytes = Buffer.from(text)
      const { value, keys } = parseJsonCounted(bytes, true, 64)
      assert.equal(bytesMeanValue(bytes, keys, value), true, text)
    }
    // The same name written two ways is one key to JSON.parse: a repeat.
    const twice = Buffer.from('{"a":1,"\\u0061":2}')
    const parsed = parseJsonCounted(twice, true, 64)
    assert.equal(bytesMeanValue(twice, parsed.keys, parsed.value), false)
  })

  it('bytes that are not valid UTF-8 are never taken as the value', () => {
    const bytes = Buffer.concat([Buffer.from('{"text":"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('b"}')])
    const { value, keys } = parseJsonCounted(bytes, true, 64)
    assert.equal((value as { text: string }).text, 'a\ufffd\ufffdb')
    assert.equal(bytesMeanValue(bytes, keys, value), false)
  })

  it('nesting past the limit gives -1, which never matches', () => {
    const deep = Buffer.from(`${'['.repeat(70)}${']'.repeat(70)}`)
    assert.equal(jsonKeysIn(deep, 64), -1)
    assert.equal(bytesMeanValue(deep, -1, JSON.parse(deep.toString())), false)
  })

  it('counts keys of very deep values without recursion', () => {
    let value: unknown = 1
    for (let i = 0; i < 100_000; i++) value = { k: value }
    assert.equal(jsonKeysOf(value), 100_000)
  })
})
