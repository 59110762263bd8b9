import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { redactJsonText, redactText } from '../src/redact.js'
import type { Detection } from '../src/scanner.js'

const detection = (start: number, end: number, kind = 'generic_secret', priority = 10): Detection =>
  ({ kind, rule: 'test', start, end, score: 0.9, level: 'restricted', priority }) as Detection

const never = () => []

describe('redactText', () => {
  it('replaces each span with [REDACTED:<kind>] and leaves the rest', () => {
    assert.equal(
      redactText('a SECRET1 b SECRET2 c', [detection(2, 9, 'x'), detection(12, 19, 'y')]),
      'a [REDACTED:x] b [REDACTED:y] c',
    )
  })

  it('merges overlapping spans and labels them with the most specific kind', () => {
    assert.equal(
      redactText('0123456789', [detection(2, 6, 'generic_secret', 10), detection(4, 8, 'github_token', 40)]),
      '01[REDACTED:github_token]89',
    )
  })
})

describe('redactJsonText', () => {
  it('keeps JSON valid when a span would end inside an escape sequence', () => {
    const json = JSON.stringify({ key: 'AB\nCD', other: 1 })
    const start = json.indexOf('AB')
    const endInsideEscape = json.indexOf('\\n') + 1
    const out = redactJsonText(json, [detection(start, endInsideEscape)], never)
    assert.deepEqual(JSON.parse(out), { key: '[REDACTED:generic_secret]CD', other: 1 })
  })

  it('cuts a span that runs over a closing quote back to the string', () => {
    const json = '{"a": "secretvalue", "b": 2}'
    const start = json.indexOf('secretvalue')
    const out = redactJsonText(json, [detection(start, start + 'secretvalue", "b'.length)], never)
    assert.deepEqual(JSON.parse(out), { a: '[REDACTED:generic_secret]', b: 2 })
  })

  it('re-encodes value by value when a span lies outside every string', () => {
    const json = '{"n": 12345678901234, "s": "tok"}'
    const start = json.indexOf('12345678901234')
    const analyze = (value: string) => (value === 'tok' ? [detection(0, 3, 'x')] : [])
    const out = redactJsonText(json, [detection(start, start + 14)], analyze)
    assert.deepEqual(JSON.parse(out), { n: 12345678901234, s: '[REDACTED:x]' })
  })

  it('treats text that is not JSON as plain text', () => {
    assert.equal(
      redactJsonText('{not json SECRET', [detection(10, 16, 'x')], never),
      '{not json [REDACTED:x]',
    )
  })
})
