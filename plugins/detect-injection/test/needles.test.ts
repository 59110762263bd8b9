import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ENCODED_WORDS } from '../src/encoded-words.js'
import {
  findNeedles,
  lowerCaseInPlace,
  matchRules,
  type RuleHit,
  sumRuleWeights,
} from '../src/match-rules.js'
import { NeedleIndex } from '../src/needle-index.js'
import { ALL_RULES } from '../src/rules/index.js'
import { loadRows } from '../train/dataset.js'
import { BENIGN_LOOKALIKES, BENIGN_TOOL_RESULTS, DIRECT_ATTACKS, TOOL_ATTACKS } from './fixtures.js'

describe('NeedleIndex', () => {
  it('finds overlapping needles and needles inside others', () => {
    const index = new NeedleIndex(['ignor', 'ignorier', 'gnore', 'he', 'she', 'hers', '忽略'])
    const found = index.find('she ignoriert hers; ignore 忽略')
    assert.deepEqual([...found], [1, 1, 1, 1, 1, 1, 1])
    assert.deepEqual([...index.find('nothing here')], [0, 0, 0, 1, 0, 0, 0])
  })

  it('reads a space in a needle as any run of whitespace', () => {
    const index = new NeedleIndex(['you are', 'ignore ', 'at the top'])
    assert.deepEqual([...index.find('if you\n\t are an ai')], [1, 0, 0])
    assert.deepEqual([...index.find('ignore\u00a0all; at  the\u3000top')], [0, 1, 1])
    assert.deepEqual([...index.find('youare ignored at thetop')], [0, 0, 0])
  })

  it('flags groups of needles, each group once, when given groups', () => {
    // Needle 0 in groups 0 and 2, needle 1 in group 1, needle 2 in group 2, needle 3 in none.
    const groups = { of: [[0, 2], [1], [2], []], count: 4 }
    const index = new NeedleIndex(['ignore', 'you are', 'nore', 'xyz'], groups)
    assert.equal(index.flags, 4)
    assert.deepEqual([...index.find('please ignore it')], [1, 0, 1, 0])
    assert.deepEqual([...index.find('you\n are; xyz')], [0, 1, 0, 0])
    assert.deepEqual([...index.find('snore')], [0, 0, 1, 0])
    assert.deepEqual([...index.find('nothing')], [0, 0, 0, 0])
  })

  it('gates each rule on its own needles, as an automaton over them alone does', () => {
    const texts = [...Object.values(DIRECT_ATTACKS), ...Object.values(TOOL_ATTACKS), ...BENIGN_LOOKALIKES]
    for (const text of texts) {
      const lower = lowerCaseInPlace(text)
      const { found } = findNeedles(lower, ALL_RULES)
      ALL_RULES.forEach((rule, r) => {
        assert.equal(found[r], new NeedleIndex(rule.needles).find(lower).includes(1) ? 1 : 0, rule.id)
      })
    }
  })

  it('agrees with a plain substring search on whitespace-collapsed text', () => {
    const needles = ['ab', 'b c', 'abc', 'c d', 'ca', 'é', 'bé', ' a']
    const index = new NeedleIndex(needles)
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed / 0x7fffffff
    }
    const alphabet = ['a', 'b', 'c', 'd', 'é', ' ', '\n', '\t', '  ']
    for (let n = 0; n < 2000; n++) {
      let text = ''
      for (let i = 0, length = Math.floor(random() * 20); i < length; i++)
        text += alphabet[Math.floor(random() * alphabet.length)]
      const collapsed = text.replace(/\s+/g, ' ')
      assert.deepEqual(
        [...index.find(text)],
        needles.map((needle) => (collapsed.includes(needle) ? 1 : 0)),
        JSON.stringify(text),
      )
    }
  })
})

describe('one needle pass for the rules and the decoder', () => {
  it('finds the encoded words where a search of their own finds them', () => {
    const own = new NeedleIndex(ENCODED_WORDS)
    let seed = 3
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
      return seed / 2 ** 32
    }
    const pieces = [
      ...ENCODED_WORDS,
      ...ENCODED_WORDS.map((w) => w.slice(0, 3)),
      'ignore ',
      'your',
      ' ',
      '\n\t ',
      'x',
      'é',
    ]
    const texts = [...Object.values(DIRECT_ATTACKS), ...BENIGN_LOOKALIKES]
    for (let i = 0; i < 2000; i++) {
      let text = ''
      for (let k = 0, length = Math.floor(random() * 12); k < length; k++)
        text += pieces[Math.floor(random() * pieces.length)]
      texts.push(text)
    }
    for (const text of texts) {
      const lower = lowerCaseInPlace(text)
      const { found, encoded } = findNeedles(lower, ALL_RULES)
      assert.deepEqual([...encoded], [...own.find(lower)], JSON.stringify(text))
      // The rules see the same flags as from the automaton over their needles alone.
      assert.deepEqual(
        matchRules(text, 'tool', ALL_RULES, lower, { found, encoded }),
        matchRules(text, 'tool', ALL_RULES),
      )
    }
  })
})

describe('rule needles', () => {
  // A needle list that misses a way the pattern can match would silently skip
  // the rule; check every rule against every text at hand, gate or no gate.
  const texts = [
    ...Object.values(DIRECT_ATTACKS),
    ...Object.values(TOOL_ATTACKS),
    ...BENIGN_LOOKALIKES,
    ...BENIGN_TOOL_RESULTS,
    ...(loadRows()?.map((r) => r.text) ?? []),
  ]

  it('every rule has lower-case needles', () => {
    for (const rule of ALL_RULES) {
      assert.ok(rule.needles.length > 0, rule.id)
      for (const needle of rule.needles) assert.equal(needle, needle.toLowerCase(), rule.id)
    }
  })

  // The same texts with their spaces replaced by other whitespace, since two-word needles rely on it.
  const respaced = texts.flatMap((text) => [text.replace(/ /g, '\n  '), text.replace(/ /g, '\t')])

  it('whenever a pattern matches, one of its needles occurs', () => {
    const indexes = ALL_RULES.map((rule) => new NeedleIndex(rule.needles))
    for (const text of [...texts, ...respaced]) {
      const lower = lowerCaseInPlace(text)
      ALL_RULES.forEach((rule, r) => {
        if (!rule.pattern.exec(rule.caseSensitive ? text : lower)) return
        assert.ok(
          indexes[r].find(lower).includes(1),
          `${rule.id} matched without a needle in: ${JSON.stringify(text.slice(0, 80))}`,
        )
      })
    }
  })

  it('two-word needles gate rules that match across line breaks', () => {
    const matched = new Set<string>()
    for (const text of respaced) {
      const lower = lowerCaseInPlace(text)
      for (const rule of ALL_RULES)
        if (rule.needles.some((n) => n.includes(' ')) && rule.pattern.exec(lower)) matched.add(rule.id)
    }
    // The property above is only as strong as the texts: many such rules must really match.
    assert.ok(matched.size >= 15, `only ${[...matched].join(', ')}`)
  })
})

describe('sumRuleWeights', () => {
  /** The sum as first written: a Map of each category's strongest weight, summed in insertion order. */
  function reference(hits: readonly RuleHit[]): number {
    const best = new Map<string, number>()
    for (const hit of hits) {
      const current = best.get(hit.category)
      if (current === undefined || Math.abs(hit.weight) > Math.abs(current))
        best.set(hit.category, hit.weight)
    }
    let sum = 0
    for (const w of best.values()) sum += w
    return sum
  }

  it('adds the strongest hit of each category, to the last bit as the Map did', () => {
    const categories = ['override', 'roleplay', 'meta', 'obfuscation', 'extraction'] as const
    const weights = [0.1, 0.7, 1.5, 2, 3.5, 4, -5.5, -1, 0.30000000000000004, 1e-9, 5.5]
    let seed = 9
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
      return seed / 2 ** 32
    }
    assert.equal(sumRuleWeights([]), 0)
    for (let k = 0; k < 5000; k++) {
      const hits: RuleHit[] = Array.from({ length: Math.floor(random() * 12) }, () => ({
        id: 'x',
        category: categories[Math.floor(random() * categories.length)],
        weight: weights[Math.floor(random() * weights.length)],
        start: 0,
        end: 0,
      }))
      assert.ok(Object.is(sumRuleWeights(hits), reference(hits)), JSON.stringify(hits))
    }
  })
})
