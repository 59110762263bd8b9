/**
 * The scanner's prefilters decide which rules run, never what they find: the
 * keyword automaton must see exactly the keywords a case-insensitive search
 * sees, and a rule's `run` condition must not lose a finding. Both are checked
 * against the plain way on random texts built around the rules' own keywords
 * and token lengths.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { AllowList } from '../src/allow-list.js'
import { KeywordAutomaton } from '../src/keyword-automaton.js'
import { ALL_RULES } from '../src/rules/index.js'
import { SecretScanner } from '../src/scanner.js'
import { alnum, b64, checksummed, hex, hostileTexts, P, pem } from './fixtures.js'

const next = seededRandom(8_675_309)
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
const KEYWORDS = [...new Set(ALL_RULES.flatMap((rule) => rule.keywords))].sort()
const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/~$%^*-.!='

/** ASCII-only lower case, as the case-insensitive (non-Unicode) keyword search folded. */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** Random text around the rules' keywords, tokens of every length near the rules' minimums, and look-alike characters. */
function randomText(): string {
  const parts: string[] = []
  const length = 1 + Math.floor(next() * 40)
  for (let i = 0; i < length; i++) {
    const r = next()
    if (r < 0.25) {
      const keyword = pick(KEYWORDS)
      parts.push(next() < 0.3 ? keyword.toUpperCase() : keyword)
    } else if (r < 0.5) {
      let token = ''
      const size = pick([5, 11, 12, 13, 19, 20, 21, 25, 26, 27, 33, 34, 35, 36, 37, 58, 59, 60, 82, 83, 90])
      for (let k = 0; k < size; k++) token += TOKEN_CHARS[Math.floor(next() * TOKEN_CHARS.length)]
      parts.push(token)
    } else if (r < 0.6) parts.push(pick(['=', '==', '.', '!', ':', '"', "'", '\n', '\t', ' = ', ': ', '|']))
    else if (r < 0.65) parts.push(pick(['\u212a', '\u017f', '\u0130', 'é', '\u00a0', '🔑']))
    else
      parts.push(
        pick(['the', 'key', 'token', 'Password', 'my', 'api', 'is', 'here', 'SK', 'pat', 's.', 'sk-']),
      )
    parts.push(next() < 0.7 ? ' ' : '')
  }
  return parts.join('')
}

function scanner(rules: readonly (typeof ALL_RULES)[number][]): SecretScanner {
  return new SecretScanner({
    rules,
    kinds: {},
    entropyThreshold: 3.5,
    allowList: new AllowList([], []),
    minScore: 0.5,
  })
}

describe('keyword automaton', () => {
  const automaton = new KeywordAutomaton(KEYWORDS)
  const seen = new Uint32Array(KEYWORDS.length)
  const found = new Uint32Array(KEYWORDS.length)
  let stamp = 0

  const present = (text: string): string[] => {
    const count = automaton.mark(text, ++stamp, seen, found)
    return [...found.subarray(0, count)].map((id) => KEYWORDS[id]).sort()
  }

  it('finds exactly the keywords an ASCII case-insensitive search finds', () => {
    for (let i = 0; i < 3000; i++) {
      const text = randomText()
      const folded = asciiLower(text)
      assert.deepEqual(
        present(text),
        KEYWORDS.filter((k) => folded.includes(k)),
        JSON.stringify(text),
      )
    }
  })

  it('finds keywords inside other keywords and overlapping ones', () => {
    assert.deepEqual(
      present('SK-ANT-API'),
      KEYWORDS.filter((k) => 'sk-ant-api'.includes(k)),
    )
  })

  it('does not fold non-ASCII look-alikes (Kelvin sign, long s) into ASCII keywords', () => {
    const found = present('\u212aEY: \u017fECRET')
    assert.ok(!found.includes('key') && !found.includes('secret'), found.join(','))
    assert.ok(present('KEY: SECRET').includes('key'))
  })

  it('refuses keywords that are not lower-case printable ASCII', () => {
    assert.throws(() => new KeywordAutomaton(['Key']), /not lower-case printable ASCII/)
    assert.throws(() => new KeywordAutomaton(['clé']), /not lower-case printable ASCII/)
    assert.throws(() => new KeywordAutomaton(['']), /not lower-case printable ASCII/)
  })
})

describe('run conditions', () => {
  const gated = ALL_RULES.filter((rule) => rule.run)
  const plain = scanner(ALL_RULES.map((rule) => ({ ...rule, run: undefined })))
  const withRuns = scanner(ALL_RULES)

  it('are declared by the lone-token rules and the vendor rules with keywords common in prose', () => {
    const ids = gated.map((rule) => rule.id)
    for (const id of ['generic-high-entropy', 'generic-named-value', 'discord-bot-token', 'twilio-api-key']) {
      assert.ok(ids.includes(id), id)
    }
  })

  it('never change a finding: random texts, fixtures and hostile texts', () => {
    const texts: string[] = []
    for (let i = 0; i < 3000; i++) texts.push(randomText())
    texts.push(
      `my key is ${alnum(40)} and the token=${b64(44)}==`,
      `discord ${pick(['M', 'N', 'O'])}${alnum(25)}.${alnum(6)}.${alnum(30)} twilio SK${hex(32)}`,
      `pat${alnum(14)}.${hex(64)} re_${alnum(8)}_${alnum(24)} ${hex(32)}-us12 s.${alnum(24)}`,
      `${P.akia}QRSTUVWXYZ234567AB sk.${alnum(90)} ${checksummed(P.ghp)}`,
      pem('PRIVATE KEY'),
      ...Object.values(hostileTexts(5_000)),
    )
    let findings = 0
    for (const text of texts) {
      const expected = plain.scan(text)
      findings += expected.length
      assert.deepEqual(withRuns.scan(text), expected, JSON.stringify(text.slice(0, 300)))
    }
    assert.ok(findings > 500, `the texts exercise the rules (${findings} findings)`)
  })
})
