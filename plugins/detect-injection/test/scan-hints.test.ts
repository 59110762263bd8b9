import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { foldLeet, LEET_MAP, LEET_STEMS, SHORTEST_STEM } from '../src/leetspeak.js'
import { lowerCaseInPlace } from '../src/match-rules.js'
import { mayHaveHints, scanAllHints, scanHints } from '../src/scan-hints.js'

// The patterns the hints stand for; each hint must be true exactly when its pattern matches.
const BASE64_RUN = /[A-Za-z0-9+/_-]{16}/
const HEX_HINT = /[0-9a-fA-F]{24}|(?:[0-9a-fA-F]{2}[\s:]){5}[0-9a-fA-F]{2}/
const SPACED_HINT = /(?:^|[^A-Za-z])[A-Za-z][ .\-_*·][A-Za-z][ .\-_*·][A-Za-z][ .\-_*·][A-Za-z](?![A-Za-z])/

/** A deterministic generator of texts made of the given pieces. */
function textsOf(pieces: readonly string[], count: number, seed: number): string[] {
  let state = seed
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
  return Array.from({ length: count }, () => {
    let text = ''
    for (let i = 0, n = Math.floor(random() * 24); i < n; i++)
      text += pieces[Math.floor(random() * pieces.length)]
    return text
  })
}

const MIXED = [
  'a',
  'F',
  'q',
  'Z',
  '0',
  '9',
  ' ',
  ':',
  '.',
  '-',
  '_',
  '*',
  '·',
  '\n',
  '\u00a0',
  '\u3000',
  '+',
  '/',
  'é',
  '你',
]
const HEXISH = [
  'ab ',
  '0f:',
  'de ',
  '01 ',
  'a',
  '9 ',
  '  ',
  'g',
  'ffffffff',
  'c\u3000',
  'b\n',
  'cd',
  'e1\u2003',
]
const SPACED = ['a ', 'Z.', 'b', '·', 'x-', 'ab', '*', 'q_', '1', 'c·', ' ']
const LEET = [
  '1gn0r3',
  'pr0mpt',
  'syst3m',
  's3cr3t',
  'ignore',
  'prompt',
  ' ',
  '.',
  '$',
  '@',
  '4',
  '7',
  '2026',
  'x',
  'é',
  'poli',
  'c',
]

describe('scanHints', () => {
  it('is true exactly when the base64, hex and spaced-letter patterns match', () => {
    const texts = [...textsOf(MIXED, 4000, 1), ...textsOf(HEXISH, 8000, 2), ...textsOf(SPACED, 4000, 3)]
    const seen = { base64: 0, hex: 0, spaced: 0 }
    for (const text of texts) {
      const hints = scanHints(text)
      const label = JSON.stringify(text)
      assert.equal(hints.base64, BASE64_RUN.test(text), label)
      assert.equal(hints.hex, HEX_HINT.test(text), label)
      assert.equal(hints.spaced, SPACED_HINT.test(text), label)
      seen.base64 += Number(hints.base64)
      seen.hex += Number(hints.hex)
      seen.spaced += Number(hints.spaced)
    }
    // Both answers must occur often, or the comparison proves little.
    for (const [kind, n] of Object.entries(seen)) assert.ok(n > 50 && n < texts.length - 50, `${kind}: ${n}`)
  })

  it('says no leetspeak only when folding it would reveal no stem the text lacks', () => {
    let revealing = 0
    for (const text of textsOf(LEET, 6000, 4)) {
      const lower = text.toLowerCase()
      const stems = lowerCaseInPlace(foldLeet(text)).match(new RegExp(LEET_STEMS, 'g')) ?? []
      const reveals = stems.some((stem) => !lower.includes(stem))
      if (reveals) {
        revealing++
        assert.ok(scanHints(text).leet, JSON.stringify(text))
      }
    }
    assert.ok(revealing > 100, `only ${revealing} texts hide a stem`)
  })

  it('rests on stems that each hold a letter no leet character stands for', () => {
    const leetLetters = new Set(Object.values(LEET_MAP))
    const stems = LEET_STEMS.source.split('|')
    for (const stem of stems)
      assert.ok(
        [...stem].some((c) => !leetLetters.has(c)),
        stem,
      )
    assert.equal(SHORTEST_STEM, Math.min(...stems.map((s) => s.length)))
  })

  it('skips the exact scan only where it finds no hint', () => {
    const PROSE = [
      'the ',
      'be ',
      'ad ',
      'a ',
      'I ',
      'e.g. ',
      'de ',
      '10 ',
      '1st ',
      '2026 ',
      'x',
      '-',
      ' ',
      '.',
      'café ',
      '$5 ',
      '@',
      'q.',
      'ff:',
      '\n',
    ]
    const texts = [
      ...textsOf(MIXED, 4000, 5),
      ...textsOf(HEXISH, 4000, 6),
      ...textsOf(SPACED, 4000, 7),
      ...textsOf(LEET, 4000, 8),
      ...textsOf(PROSE, 8000, 9),
    ]
    let skipped = 0
    let found = 0
    for (const text of texts) {
      const exact = scanAllHints(text)
      const any = exact.base64 || exact.hex || exact.spaced || exact.leet
      found += Number(any)
      if (mayHaveHints(text)) assert.deepEqual(scanHints(text), exact, JSON.stringify(text))
      else {
        skipped++
        assert.ok(!any, JSON.stringify(text))
        assert.deepEqual(scanHints(text), exact)
      }
    }
    assert.ok(skipped > 2000 && found > 2000, `skipped ${skipped}, found ${found}`)
  })

  it('finds nothing in ordinary prose', () => {
    const hints = scanHints(
      'Could you suggest a two-week itinerary for Japan in April, with a budget of 150 euros a day?',
    )
    assert.deepEqual(hints, { base64: false, hex: false, spaced: false, leet: false })
  })
})
