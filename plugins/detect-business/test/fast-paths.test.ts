/**
 * The fast paths find what the plain ones find: the dense automaton table
 * reports the same hits as the compact form, scanning text folded on the fly
 * the same as scanning its folded copy, and the phrase matcher the same on
 * either path. Checked on random texts made of the markings, separators,
 * capitals and non-ASCII characters.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { AhoCorasick } from '../src/aho-corasick.js'
import { AMOUNT, amountMatches, findFinancialFigures } from '../src/find-financial-figures.js'
import { foldChar, foldTerm, foldText } from '../src/fold-text.js'
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

  it('scans text folded on the fly exactly as its folded copy', () => {
    for (let i = 0; i < 4000; i++) {
      const text = randomText(i % 2 === 0)
      const expected = hitsOf((onMatch) => dense.scan(foldText(text).text, onMatch))
      const onTheFly = hitsOf((onMatch) => assert.ok(dense.scanFolded(text, foldChar, onMatch)))
      assert.deepEqual(onTheFly, expected, JSON.stringify(text))
    }
  })

  it('leaves on-the-fly folding to the caller when there is no dense table', () => {
    assert.equal(
      compact.scanFolded('strictly confidential', foldChar, () => assert.fail('reported')),
      false,
    )
  })
})

describe('phrase matcher', () => {
  it('finds the same hits folding on the fly as folding first', () => {
    const onTheFly = new PhraseMatcher(BUILT_IN_MARKINGS, (m) => [m.text])
    const foldFirst = new PhraseMatcher(BUILT_IN_MARKINGS, (m) => [m.text], { dense: false })
    let total = 0
    for (let i = 0; i < 4000; i++) {
      const text = randomText(i % 2 === 0)
      const expected = foldFirst.find(text)
      total += expected.length
      assert.deepEqual(onTheFly.find(text), expected, JSON.stringify(text))
    }
    assert.ok(total > 2000, `the texts hold markings (${total} hits)`)
  })
})

describe('financial figures', () => {
  const PIECES = [
    '$',
    'US$',
    'USD',
    'usd $',
    'EUR',
    'eur',
    '€',
    '£',
    'CHF',
    'Fr.',
    'R$',
    'HK$',
    'ſ$',
    'k',
    'm',
    'bn',
    'million',
  ]
  const NUMBERS = ['5', '12', '1,234', '1.234.567,89', "3'500", '4.2', '7\u00a0000', '2024', '0', '99']
  const GLUE = [' ', '', '  ', '\n', '.', ',', ':', '-', 'a', 'Q3', '(', ')', 'revenue', 'é', '٣']

  it('tries only where an amount may start, and finds what the full pattern finds', () => {
    let total = 0
    for (let i = 0; i < 6000; i++) {
      let text = ''
      const parts = 1 + Math.floor(next() * (i % 10 === 0 ? 120 : 20))
      for (let k = 0; k < parts; k++) text += pick([pick(PIECES), pick(NUMBERS), pick(GLUE), pick(GLUE)])
      const expected = [...text.matchAll(AMOUNT)].map((m) => [m.index, m[0]])
      total += expected.length
      assert.deepEqual(
        amountMatches(text).map((m) => [m.index, m[0]]),
        expected,
        JSON.stringify(text),
      )
    }
    assert.ok(total > 3000, `the texts hold amounts (${total})`)
  })

  it('finds nothing without an ASCII digit', () => {
    for (const text of ['revenue of five million dollars', 'Umsatz: ٣٫٥ Mio. €', 'EUR ５００ million']) {
      assert.deepEqual(findFinancialFigures(text), [])
    }
    assert.equal(findFinancialFigures('Q3 revenue was $4.2m, unreleased').length, 1)
  })
})
