import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { splitFragments, splitText } from '../../src/adapters/stream-pieces.js'

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff

describe('splitText', () => {
  it('cuts prose into word-aligned pieces of about 24 characters that concatenate back', () => {
    const text =
      'The quick brown fox jumps over the lazy dog, again and again, until the sun sets over the hills.'
    const pieces = splitText(text)
    assert.equal(pieces.join(''), text)
    assert.ok(pieces.length >= 3)
    for (const piece of pieces.slice(0, -1)) assert.ok(piece.length >= 24 && piece.length < 40, piece)
    for (const piece of pieces.slice(1)) assert.match(piece, /^\s\S/)
  })

  it('keeps whitespace runs, newlines and empty text intact', () => {
    for (const text of ['', ' ', '\n\nfirst paragraph here is long enough\n\n  second one  ', 'short']) {
      assert.equal(splitText(text).join(''), text)
    }
    assert.deepEqual(splitText(''), [])
  })

  it('cuts a run without whitespace, never inside a surrogate pair', () => {
    const text = '😀'.repeat(300)
    const pieces = splitText(text)
    assert.equal(pieces.join(''), text)
    assert.ok(pieces.length > 1)
    for (const piece of pieces) assert.equal(isHigh(piece.charCodeAt(piece.length - 1)), false)
  })

  it('bounds the number of pieces of a long text', () => {
    const text = 'word '.repeat(20_000)
    const pieces = splitText(text)
    assert.equal(pieces.join(''), text)
    assert.ok(pieces.length <= 401, String(pieces.length))
  })
})

describe('splitFragments', () => {
  it('cuts JSON into fixed fragments that concatenate back, never inside a surrogate pair', () => {
    const json = JSON.stringify({ location: 'Paris, France', note: 'a😀b😀c😀d😀e😀f' })
    const pieces = splitFragments(json)
    assert.equal(pieces.join(''), json)
    assert.ok(pieces.length >= 3)
    for (const piece of pieces) assert.equal(isHigh(piece.charCodeAt(piece.length - 1)), false)
    assert.deepEqual(splitFragments(''), [])
  })
})
