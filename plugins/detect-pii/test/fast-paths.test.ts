import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { codeUnits, scratchCodeUnits } from '../src/code-units.js'
import { LETTER, UPPER, unitClass } from '../src/entities/char-class.js'
import { codeRanges, mayEndAsCode, mayHaveInline } from '../src/entities/code-regions.js'
import { FlagCache, flagsOfWord, lexiconOf } from '../src/entities/lexicon.js'
import { MAX_FEATURES, mix, shapeHash, TAG_COUNT, tokenFeatures } from '../src/entities/ner-features.js'
import { dequantise, MODEL_URL, ROW, tagTokens, tokenView } from '../src/entities/ner-model.js'
import { type Token, tokenize } from '../src/entities/tokenize.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { matchesOf } from '../src/structured/matches.js'
import { ADDRESS_PATTERNS, matchesFrom } from '../src/structured/street-address.js'

// The fast paths of 0.5.1 against the plain way they replace, on random texts.

const PIECES = [
  'The ',
  'I ',
  'we ',
  'Anna ',
  'Berg',
  'van der ',
  'Ltd.',
  "O'Neil ",
  'McDonald ',
  'getUserName',
  ' `code` ',
  'http://a.b/c ',
  'www.x.org ',
  'a/b ',
  ';',
  ' {',
  '}',
  ':',
  ' => {',
  '=> ',
  ')  :',
  '\u2028',
  '\u00a0',
  '\u3000',
  '\r',
  '\n',
  '\t',
  ' ',
  '. ',
  ', ',
  'Zürich ',
  'ÉCOLE ',
  'Łódź ',
  'İstanbul ',
  '😀',
  'x\u0301',
  'SELECT id FROM t ',
  'x = 1',
  '12 ',
  'THE ',
  'the ',
  "Anna's ",
  'Ab'.repeat(20),
  'é',
  "JOHN'S ",
  'abC',
  'aBc ',
  '𝐀𝐚𝐛𝐀 ',
  'x𐐀y ',
  'ab𐐨C ',
  'ǅa ',
  '\ud800a ',
]

function randomTexts(count: number, seed: number): string[] {
  const random = seededRandom(seed)
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    let text = ''
    const n = 1 + Math.floor(random() * 40)
    for (let k = 0; k < n; k++) text += PIECES[Math.floor(random() * PIECES.length)]
    out.push(text)
  }
  return out
}

const CODE_END = /[;{}]\s*$|\)\s*:\s*$|=>\s*\{?\s*$/
const INLINE = /`[^`\n]+`|\bhttps?:\/\/\S+|\bwww\.\S+|\b[\w.-]+\/[\w./-]+/

describe('fast paths', () => {
  it('skips the code-end and inline-code patterns only on lines they cannot match', () => {
    let skipped = 0
    for (const text of randomTexts(20_000, 7)) {
      for (const line of text.split('\n')) {
        if (!mayEndAsCode(line)) {
          skipped++
          assert.equal(CODE_END.test(line), false, JSON.stringify(line))
        }
        if (!mayHaveInline(line)) assert.equal(INLINE.test(line), false, JSON.stringify(line))
        if (!/[A-Z]{2}/.test(line)) assert.equal(/\b[A-Z]{2,8}\b/.test(line), false, JSON.stringify(line))
      }
    }
    assert.ok(skipped > 1000)
    // Every white-space character \s knows, trailing after a statement end.
    for (let c = 0; c < 0x10000; c++) {
      const line = `x = f();${String.fromCharCode(c)}`
      if (c === 10) continue
      assert.equal(mayEndAsCode(line) || !CODE_END.test(line), true, `U+${c.toString(16)}`)
    }
    assert.deepEqual(codeRanges('see `a` and http://x.y/z\nplain prose here'), [
      [4, 7],
      [12, 24],
    ])
  })

  it('gives the flags of flagsOfWord from the flag cache, also when words share a slot', async () => {
    const g = await sharedGazetteer()
    const lexicon = lexiconOf(g)
    const cache = new FlagCache(lexicon)
    const words = [
      ...['The', 'the', 'THE', 'Anna', 'anna', 'London', 'llms', 'APIs', 'Grace', 'Mr', 'Ltd', 'x'],
      ...[...g.firstNames].slice(0, 3000),
      ...[...g.cities].slice(0, 3000).map((w) => w.replace(/^./, (c) => c.toUpperCase())),
      'Ab'.repeat(13),
      'Łódź',
      'İstanbul',
    ]
    const text = words.join(' ')
    const units = codeUnits(text)
    const tokens = tokenize(text, units)
    // Three rounds: first fills, the others read (with 6,000+ words in 4,096 slots, many are replaced).
    for (let round = 0; round < 3; round++)
      for (const t of tokens) assert.equal(cache.flags(units, t), flagsOfWord(lexicon, t.key), t.key)
  })

  it('tags the same with lazy shapes, padded weight rows and reused tables as with the plain view', async () => {
    const g = await sharedGazetteer()
    const model = g.model
    assert.ok(model)
    const lexicon = lexiconOf(g)
    const flagsOf = (t: Token) => flagsOfWord(lexicon, t.key)
    const prose =
      'Hi team, I met Maria Gonzalez from Acme Logistics Ltd. in Berlin. She said that Tom and ' +
      'Dr. van der Berg of the University of Oslo will call. The Berg report is late; the berg is not.'
    for (const text of [prose, ...randomTexts(3000, 11), prose.repeat(200)]) {
      const units = codeUnits(text)
      const tokens = tokenize(text, units)
      const lazy = tokenView(tokens, units, true)
      const plain = tokenView(tokenize(text, units), units)
      const a = tagTokens(model, lazy, flagsOf, undefined)
      const b = tagTokens(model, plain, flagsOf, undefined)
      assert.deepEqual(a, b)
      assert.deepEqual(lazy.docCase, plain.docCase)
      assert.deepEqual(lazy.word, plain.word)
      for (let i = 0; i < tokens.length; i++)
        if (lazy.shapeReady?.[i])
          assert.equal(lazy.shape[i], shapeHash(units, tokens[i].start, tokens[i].end))
    }
    // The padded rows hold the stored weights in order, zeros after them.
    const bytes = readFileSync(MODEL_URL)
    const size = (1 << bytes.readUInt8(8)) * TAG_COUNT
    const codes = new Uint16Array(size)
    for (let k = 0; k < size; k++) codes[k] = bytes.readUInt16LE(20 + k * 2)
    const plainWeights = dequantise(codes)
    assert.equal(model.weights.length, (size / TAG_COUNT) * ROW)
    for (let r = 0; r < size / TAG_COUNT; r++) {
      for (let c = 0; c < TAG_COUNT; c++)
        assert.equal(model.weights[r * ROW + c], plainWeights[r * TAG_COUNT + c])
      assert.equal(model.weights[r * ROW + 7], 0)
    }
  })

  it('tokenizes as reading each word again for its lower-case letters and camelCase candidates did (0.6.3)', () => {
    // The passes the tokenizer made per word before 0.6.3, over code points (allCaps) and units (camelCase).
    const hasLower = (units: Uint16Array, start: number, end: number) => {
      for (const ch of String.fromCharCode(...units.subarray(start, end))) if (/\p{Ll}/u.test(ch)) return true
      return false
    }
    const mayBeCamel = (units: Uint16Array, start: number, end: number) => {
      for (let i = start + 2; i < end; i++) {
        const c = units[i]
        if (c < 128 ? c >= 65 && c <= 90 : (c >= 0xd800 && c <= 0xdbff) || unitClass(c) & UPPER) return true
      }
      return false
    }
    const CAMEL = /^(?!(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|Du|Fitz|O'|D'|GmbH\b|mbH\b))\p{L}*\p{Ll}{2}\p{Lu}/u
    let camel = 0
    for (const text of randomTexts(20_000, 13)) {
      const units = codeUnits(text)
      for (const t of tokenize(text, units)) {
        const word = text.slice(t.start, t.end)
        assert.equal(t.cap, (unitClass(units[t.start]) & UPPER) !== 0, word)
        assert.equal(t.allCaps, t.end - t.start > 1 && !hasLower(units, t.start, t.end), word)
        const after = t.end < units.length ? units[t.end] : -1
        const camelCase = mayBeCamel(units, t.start, t.end) && CAMEL.test(word)
        const codeLike =
          camelCase ||
          (after === 46 && t.end + 1 < units.length && (unitClass(units[t.end + 1]) & LETTER) !== 0) ||
          (t.start > 0 && units[t.start - 1] === 46)
        assert.equal(t.codeLike, codeLike, word)
        if (camelCase) camel++
      }
    }
    assert.ok(camel > 100)
  })

  it('writes the features of the set flag bits, in the order of testing every bit (0.6.3)', async () => {
    const g = await sharedGazetteer()
    const lexicon = lexiconOf(g)
    const out = new Uint32Array(MAX_FEATURES)
    // Template numbers of ner-features.ts: Bias 1, Flag 18, PrevFlag 19, NextFlag 20, SentenceStart 21, FlagCombo 28.
    let flagged = 0
    for (const text of randomTexts(2000, 17)) {
      const units = codeUnits(text)
      const tokens = tokenize(text, units)
      const view = tokenView(tokens, units)
      const flags = view.flags as Int32Array
      for (let i = 0; i < tokens.length; i++) flags[i] = flagsOfWord(lexicon, tokens[i].key)
      for (let i = 0; i < tokens.length; i++) {
        const n = tokenFeatures(view, i, 1, 0, out)
        // The flag features as 0.6.2 wrote them, testing each of the 17 bits in turn, after the 16–19 word features.
        const expected: number[] = []
        const len = tokens[i].end - tokens[i].start
        let at = 16 + (len > 3 ? (len > 4 ? 3 : 2) : 0)
        for (let b = 0; b < 17; b++) if (flags[i] & (1 << b)) expected.push(mix(18, b))
        expected.push(mix(28, flags[i] & 0x3f))
        if (i > 0) for (let b = 0; b < 17; b++) if (flags[i - 1] & (1 << b)) expected.push(mix(19, b))
        if (i + 1 < tokens.length) {
          let count = at + expected.length
          for (let b = 0; b < 17 && count < MAX_FEATURES - 10; b++)
            if (flags[i + 1] & (1 << b)) {
              expected.push(mix(20, b))
              count++
            }
        }
        assert.deepEqual([...out.subarray(at, at + expected.length)], expected, text)
        at += expected.length
        assert.equal(n, at + 8)
        assert.equal(out[0], mix(1, 0))
        if (flags[i]) flagged++
      }
    }
    assert.ok(flagged > 1000)
  })

  it('writes code units into its kept buffer as codeUnits copies them (0.6.3)', () => {
    for (const text of [...randomTexts(2000, 19), 'a\ud800b\udc00', '', 'x'.repeat(40_000)]) {
      const copy = codeUnits(text)
      const kept = scratchCodeUnits(text)
      assert.deepEqual([...kept], [...copy])
      assert.equal(kept.length, text.length)
    }
    // The kept buffer is reused: a view is valid until the next call only.
    const first = scratchCodeUnits('abc')
    scratchCodeUnits('xyz')
    assert.equal(String.fromCharCode(...first), 'xyz')
  })

  it('searches the address patterns from where a match can begin, and finds every match the full search finds (0.6.3)', () => {
    const pieces = [
      ...[
        '12 ',
        'Baker Street',
        'Hauptstraße 5',
        'Holmevej 34',
        'Via Roma 41',
        'Apt 3',
        'Suite 200',
        '#5',
        ', ',
      ],
      ...[
        '\n',
        '\t',
        ' ',
        'Ab ',
        "O'Neil ",
        'St. ',
        'tie 5',
        'gate 9',
        'Rue du Centre 3',
        'ul. Długa 5',
        '(',
        ':',
      ],
      ...[
        'É',
        'Łódź ',
        'ring 2021',
        'Unit 4',
        'x',
        '-',
        '.',
        "'",
        '’',
        '9A',
        '12-3 ',
        'Av. ',
        'apt 3',
        'via ',
        '\u0301',
      ],
    ]
    const random = seededRandom(23)
    let windowed = 0
    let found = 0
    for (let k = 0; k < 20_000; k++) {
      let text = ''
      const n = 1 + Math.floor(random() * 25)
      for (let j = 0; j < n; j++) text += pieces[Math.floor(random() * pieces.length)]
      for (const patterns of ADDRESS_PATTERNS)
        for (const { re, needs, anchor, barrier } of patterns) {
          if (!anchor || !barrier || !needs?.test(text)) continue
          windowed++
          const all = [...matchesOf(re, text)].map((m) => `${m.index}:${m[0]}`)
          const from = [...matchesFrom(re, anchor, barrier, text)].map((m) => `${m.index}:${m[0]}`)
          assert.deepEqual(from, all, JSON.stringify(text))
          found += all.length
        }
    }
    assert.ok(windowed > 10_000 && found > 2_000, `${windowed} ${found}`)
  })
})
