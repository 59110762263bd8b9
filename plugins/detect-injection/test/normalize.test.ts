import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normalizeText, originalSpan } from '../src/normalize.js'
import { toTagCharacters } from './fixtures.js'

describe('normalizeText', () => {
  it('leaves plain ASCII untouched with identity offsets', () => {
    const n = normalizeText('hello world')
    assert.equal(n.text, 'hello world')
    assert.equal(n.offsets, undefined)
  })

  it('applies NFKC and maps every character back', () => {
    const input = 'ﬁne Ｈｉ'
    const n = normalizeText(input)
    assert.equal(n.text, 'fine Hi')
    assert.deepEqual(originalSpan(n, 5, 7), { start: 4, end: 6 }) // "Hi" came from two fullwidth letters
    assert.deepEqual(originalSpan(n, 0, 2), { start: 0, end: 1 }) // "fi" came from one ligature
  })

  it('removes zero-width and bidi characters and counts them', () => {
    const n = normalizeText('ab\u200bcd \u202eevil\u202c')
    assert.equal(n.text, 'abcd evil')
    assert.equal(n.splitWordInvisibles, 1)
    assert.equal(n.bidiControls, 2)
  })

  it('does not count zero-width characters between non-Latin letters or in emoji', () => {
    assert.equal(normalizeText('ខ្ញុំ\u200bឈ្មោះ').splitWordInvisibles, 0)
    assert.equal(normalizeText('👩\u200d👩\u200d👧').splitWordInvisibles, 0)
  })

  it('decodes tag characters and reports where they were', () => {
    const hidden = toTagCharacters('hi there')
    const n = normalizeText(`ok${hidden}!`)
    assert.equal(n.text, 'ok!')
    assert.equal(n.tagText, 'hi there')
    assert.deepEqual(n.tagSpan, { start: 2, end: 2 + hidden.length })
  })

  it('folds Cyrillic look-alikes only inside words that mix scripts', () => {
    assert.equal(normalizeText('pаssword').text, 'password') // Cyrillic а
    assert.equal(normalizeText('пароль').text, 'пароль')
    assert.equal(normalizeText('pаssword').foldedConfusables, 1)
  })
})
