/**
 * The fast paths find what the plain ones find: the dense automaton table
 * reports the same hits as the compact form, scanning ASCII text folded on the
 * fly the same as scanning its folded copy, and the phrase matcher the same on
 * either path. Checked on random texts made of the markings, separators,
 * capitals and non-ASCII characters.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { AhoCorasick } from '../src/aho-corasick.js'
import { findFinancialFigures } from '../src/find-financial-figures.js'
import { foldTerm, foldText } from '../src/fold-text.js'
import { BUILT_IN_MARKINGS } from '../src/marking-list.js'
import { PhraseMatcher } from '../src/phrase-matcher.js'

const next = seededRandom(424_242)
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
const PHRASES = [...new Set(BUILT_IN_MARKINGS.map((m) => foldTerm(m.text)))]
const FILLER = ['the', 'memo', 'is', 'Internal', 'a', 'of', 'hers', 'she', 'CONFIDENTIALITY', 'use', 'only']
const SEPARATORS = [' ', '  ', '-', '_', ' - ', '\t', '\n', '\r\n', '--__ ']

/** Random ASCII text of markings (any case, any separators) and filler; `nonAscii` adds accents, CJK and full-width letters. */
function randomText(nonAscii: boolean): string {
  let text = ''
  const words = 1 + Math.floor(next() * 30)
  for (let i = 0; i < words; i++) {
    let word = next() < 0.4 ? pick(BUILT_IN_MARKINGS).text : pick(FILLER)
    if (next() < 0.3) word = word.toUpperCase()
    word = word.replaceAll(' ', pick(SEPARATORS))
    if (!/^[\x20-\x7e]*$/.test(word) && !nonAscii) word = 'plain'
    text += word + pick(SEPARATORS)
    if (nonAscii && next() < 0.2) text += pick(['é', 'Ｃｏｎｆｉｄｅｎｔｉａｌ', '極秘', '\u00a0', '–', 'ﬁ'])
  }
  return text
}

function hitsOf(scan: (onMatch: (id: number, start: number, end: number) => void) => void): number[][] {
  const hits: number[][] = []
  scan((id, start, end) => hits.push([id, start, end]))
  return hits
}

describe('dense automaton', () => {
  const dense = new AhoCorasick(PHRASES)
  const compact = new AhoCorasick(PHRASES, { dense: false })

  it('reports the same hits as the compact form', () => {
    let total = 0
    for (let i = 0; i < 2000; i++) {
      const folded = foldText(randomText(true)).text
      const expected = hitsOf((onMatch) => compact.scan(folded, onMatch))
      total += expected.length
      assert.deepEqual(
        hitsOf((onMatch) => dense.scan(folded, onMatch)),
        expected,
        folded,
      )
    }
    assert.ok(total > 1000, `the texts hold markings (${total} hits)`)
  })

  it('scans ASCII text folded on the fly exactly as its folded copy', () => {
    for (let i = 0; i < 2000; i++) {
      const text = randomText(false)
      const expected = hitsOf((onMatch) => dense.scan(foldText(text).text, onMatch))
      const onTheFly = hitsOf((onMatch) => assert.ok(dense.scanFoldedAscii(text, onMatch)))
      assert.deepEqual(onTheFly, expected, JSON.stringify(text))
    }
  })

  it('leaves on-the-fly folding to the caller when there is no dense table', () => {
    assert.equal(
      compact.scanFoldedAscii('strictly confidential', () => assert.fail('reported')),
      false,
    )
  })
})

describe('phrase matcher', () => {
  it('finds the same hits in ASCII text as on the folding path for other text', () => {
    const matcher = new PhraseMatcher(BUILT_IN_MARKINGS, (m) => [m.text])
    let total = 0
    for (let i = 0; i < 2000; i++) {
      const text = randomText(false)
      // A non-ASCII character after a space sends the text down the folding path without changing earlier hits.
      const slow = matcher.find(`${text} 極`).filter((hit) => hit.end <= text.length)
      total += slow.length
      assert.deepEqual(matcher.find(text), slow, JSON.stringify(text))
    }
    assert.ok(total > 1000, `the texts hold markings (${total} hits)`)
  })
})

describe('financial figures', () => {
  it('finds nothing without an ASCII digit, as the amount pattern would', () => {
    for (const text of ['revenue of five million dollars', 'Umsatz: ٣٫٥ Mio. €', 'EUR ５００ million']) {
      assert.deepEqual(findFinancialFigures(text), [])
    }
    assert.equal(findFinancialFigures('Q3 revenue was $4.2m, unreleased').length, 1)
  })
})
