import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ErrorCodes, Verdicts } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import step from '../src/index.js'
import { detectorWith, found, settingsWith } from './settings-helper.js'

// Known false positives an admin wants silenced: a public footer that carries a marking word,
// an order-number format that the customer-id pattern also matches.
const FOOTER = 'Confidential and proprietary - public release'
const TEXT = `Release notes\n\n${FOOTER}`
const PATTERNS = [{ name: 'customer_id', regex: 'CUST-\\d{6}', level: 'confidential' }]

describe('allow-list', () => {
  it('the examples are findings to begin with', () => {
    assert.ok(found(TEXT, detectorWith().analyze(TEXT)).length > 0)
    const ids = detectorWith({ patterns: PATTERNS }).analyze('order CUST-000000 and CUST-123456')
    assert.equal(ids.length, 2)
  })

  it('an allowed phrase silences what lies inside it, folded like terms', () => {
    const detector = detectorWith({ allow_list: ['confidential and PROPRIETARY — public release'] })
    assert.deepEqual(detector.analyze(TEXT), [])
    // The same marking outside the allowed phrase is still found.
    const other = 'CONFIDENTIAL\n\nBoard update'
    assert.deepEqual(found(other, detector.analyze(other)), ['confidentiality_marking:CONFIDENTIAL'])
  })

  it('an allowed pattern silences matching spans only', () => {
    const detector = detectorWith({ patterns: PATTERNS, allow_patterns: ['CUST-0{6}'] })
    const text = 'order CUST-000000 and CUST-123456'
    assert.deepEqual(found(text, detector.analyze(text)), ['business_identifier:CUST-123456'])
  })

  it('works through the step: no report, no block', async () => {
    const strict = { allow_list: [FOOTER], block_level: 'confidential' }
    const instance = await step.create(settingsWith(strict), makeServices('detect_business'))
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text: TEXT }]))
    assert.deepEqual(instance.onRequest?.(ctx), Verdicts.continue())
    assert.equal(ctx.findings.length, 0)
  })

  for (const [name, settings] of [
    ['a pattern that nests quantifiers', { allow_patterns: ['(a+)+'] }],
    ['a pattern that does not compile', { allow_patterns: ['(['] }],
    ['a pattern that matches the empty string', { allow_patterns: ['x*'] }],
    ['a term with nothing to match', { allow_list: ['--'] }],
  ] as const) {
    it(`refuses ${name} at load`, () => {
      assert.throws(() => detectorWith(settings), {
        code: ErrorCodes.STEP_SETTINGS_INVALID,
        status: 400,
      })
    })
  }
})
