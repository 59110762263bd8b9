import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { lowerCaseInPlace } from '../src/match-rules.js'
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

  it('whenever a pattern matches, one of its needles occurs', () => {
    for (const text of texts) {
      const lower = lowerCaseInPlace(text)
      for (const rule of ALL_RULES) {
        if (!rule.pattern.exec(rule.caseSensitive ? text : lower)) continue
        assert.ok(
          rule.needles.some((n) => lower.includes(n)),
          `${rule.id} matched without a needle in: ${text.slice(0, 80)}`,
        )
      }
    }
  })
})
