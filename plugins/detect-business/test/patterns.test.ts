import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import {
  compileSafePattern,
  MAX_PATTERN_LENGTH,
  MAX_REPEAT,
  UnsafePatternError,
} from '../src/safe-pattern.js'
import { detectorWith, found, schemaAccepts } from './settings-helper.js'

const NO_DEFAULTS = { markings: false, financial: false }

function refusal(regex: string): { reason: unknown; pattern: unknown; path: unknown } {
  try {
    detectorWith({
      ...NO_DEFAULTS,
      patterns: [
        { name: 'ok_one', regex: 'OK-\\d{3}' },
        { name: 'bad_one', regex },
      ],
    })
  } catch (error) {
    assert.ok(error instanceof GovError)
    assert.equal(error.code, 'GOV_ERR_STEP_SETTINGS_INVALID')
    assert.equal(error.status, 400)
    return error.details as { reason: unknown; pattern: unknown; path: unknown }
  }
  assert.fail(`pattern ${regex} was accepted`)
}

describe('identifier patterns', () => {
  const detector = detectorWith({
    ...NO_DEFAULTS,
    patterns: [
      { name: 'customer_id', regex: 'CUST-\\d{6}', level: 'confidential' },
      { name: 'contract_id', regex: 'ctr-[a-z]{2}-\\d{4}', level: 'restricted', ignore_case: true },
      { name: 'inline_ref', regex: 'REF\\d{3}', whole_word: false },
    ],
  })

  it('reports matches with the pattern name and level, never the value', () => {
    const text = 'Customer CUST-004512 under contract CTR-DE-2231.'
    const hits = detector.analyze(text)
    assert.deepEqual(found(text, hits), [
      'business_identifier:CUST-004512',
      'business_identifier:CTR-DE-2231',
    ])
    assert.deepEqual(hits[0].detail, { pattern: 'customer_id' })
    assert.equal(hits[1].level, 'restricted')
    assert.equal(hits[1].maskAs, 'CONTRACT_ID')
  })

  it('matches whole words unless told otherwise, and is case-sensitive unless told otherwise', () => {
    assert.deepEqual(detector.analyze('CUST-1234567 and XCUST-123456 and cust-123456'), [])
    assert.deepEqual(found('docREF123x', detector.analyze('docREF123x')), ['business_identifier:REF123'])
  })

  it('refuses invalid syntax, naming the pattern and where it is', () => {
    const details = refusal('CUST-(\\d{6}')
    assert.equal(details.reason, 'syntax')
    assert.equal(details.pattern, 'bad_one')
    assert.equal(details.path, '/patterns/1/regex')
  })

  it('refuses shapes that backtrack without bound', () => {
    assert.equal(refusal('(a+)+b').reason, 'nested_quantifier')
    assert.equal(refusal('(?:x|xy)*z').reason, 'nested_quantifier')
    assert.equal(refusal('(\\d{1,3}\\.){3}\\d{1,3}').reason, 'nested_quantifier')
    assert.equal(refusal('(a)\\1').reason, 'backreference')
    assert.equal(refusal('(?<q>a)\\k<q>').reason, 'backreference')
    assert.equal(refusal('\\w+\\s+\\w+').reason, 'too_much_backtracking')
    assert.equal(refusal('x?').reason, 'matches_empty')
    const tooLong = `A${'B'.repeat(MAX_PATTERN_LENGTH)}`
    assert.equal(schemaAccepts({ patterns: [{ name: 'long', regex: tooLong }] }), false)
    assert.throws(
      () => compileSafePattern(tooLong, false),
      (error) => error instanceof UnsafePatternError && error.reason === 'too_long',
    )
  })

  it('accepts repeated fixed groups, optional alternations and classes with quantifier characters', () => {
    const ok = detectorWith({
      ...NO_DEFAULTS,
      patterns: [
        { name: 'a', regex: '(?:\\d{3}-){2}\\d{4}' },
        { name: 'b', regex: 'ACME-\\d{4}(?:-(?:EU|US))?' },
        { name: 'c', regex: 'K[+*?]{2}\\d{2}' },
      ],
    })
    const text = '555-123-4567 ACME-2024-EU K+*42'
    assert.deepEqual(found(text, ok.analyze(text)), [
      'business_identifier:555-123-4567',
      'business_identifier:ACME-2024-EU',
      'business_identifier:K+*42',
    ])
  })

  it(`caps unbounded quantifiers at ${MAX_REPEAT}, so a 200 KB adversarial text stays cheap`, () => {
    const capped = detectorWith({ ...NO_DEFAULTS, patterns: [{ name: 'tag', regex: '[A-Z]+-\\d+x' }] })
    const hostile = 'A'.repeat(200_000)
    const started = performance.now()
    assert.deepEqual(capped.analyze(hostile), [])
    const ms = performance.now() - started
    // A bound for a quadratic or backtracking scan (minutes on 200 KB), not a speed goal:
    // linear runs took 0.2–1.6 s on a loaded CI machine.
    assert.ok(ms < 20_000, `took ${ms} ms`)
    const text = `${'B'.repeat(80)}-12x`
    assert.deepEqual(found(text, capped.analyze(text)), [])
    assert.deepEqual(found('ABC-12x', capped.analyze('ABC-12x')), ['business_identifier:ABC-12x'])
  })

  it('is validated by the schema for names and lengths before create() sees it', () => {
    assert.equal(schemaAccepts({ patterns: [{ name: 'Customer ID', regex: 'C\\d' }] }), false)
    assert.equal(schemaAccepts({ patterns: [{ name: 'customer_id', regex: '' }] }), false)
    assert.equal(schemaAccepts({ patterns: [{ name: 'customer_id', regex: 'C\\d' }] }), true)
  })
})
