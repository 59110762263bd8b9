import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ErrorCodes, GovError, type Verdict } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import { AllowList } from '../src/allow-list.js'
import step from '../src/index.js'
import type { InjectionSettings } from '../src/settings.js'
import { DIRECT_ATTACKS } from './fixtures.js'

const DEFAULTS: InjectionSettings = {
  threshold: 0.7,
  tool_result_threshold: 0.7,
  scan_system: false,
  scan_assistant: true,
  scan_tool_results: true,
  decode_payloads: true,
  allow_list: [],
  allow_patterns: [],
  cache_size: 100,
  offload_above_bytes: 32 * 1024,
  offload_workers: 1,
}

// A product whose own name reads like an attack: the admin's known false positive.
const PRODUCT = 'Ignore Previous Instructions'
const BENIGN = `Our board game "${PRODUCT}" ships in May. Write a short tagline for ${PRODUCT}.`

async function verdictOf(settings: Partial<InjectionSettings>, text: string): Promise<Verdict | undefined> {
  const instance = await step.create({ ...DEFAULTS, ...settings }, makeServices('detect_injection'))
  return instance.onRequest?.(makeRequestContext(makeExchange([{ source: 'user', text }])))
}

function settingsInvalid(error: unknown): boolean {
  return error instanceof GovError && error.code === ErrorCodes.STEP_SETTINGS_INVALID && error.status === 400
}

describe('allow-list', () => {
  it('blanks allowed terms and pattern matches with as many spaces', () => {
    const list = new AllowList(['ignore previous'], ['ticket-\\d+'])
    const text = 'IGNORE previous ticket-42 please'
    const out = list.apply(text)
    assert.equal(out.length, text.length)
    assert.equal(out, `${' '.repeat(15)} ${' '.repeat(9)} please`)
    assert.equal(list.apply('nothing here'), 'nothing here')
    assert.ok(new AllowList([], []).empty)
  })

  it('silences a known false positive with a term', async () => {
    assert.equal(
      (await verdictOf({}, BENIGN))?.kind,
      'block',
      'the example must be a false positive to begin with',
    )
    assert.equal((await verdictOf({ allow_list: [PRODUCT.toLowerCase()] }, BENIGN))?.kind, 'continue')
  })

  it('silences a known false positive with a pattern', async () => {
    assert.equal(
      (await verdictOf({ allow_patterns: ['"?ignore previous instructions"?'] }, BENIGN))?.kind,
      'continue',
    )
  })

  it('still blocks an attack next to an allowed phrase, with a span into the original text', async () => {
    const text = `${BENIGN}\n${DIRECT_ATTACKS.developer_mode}`
    const instance = await step.create(
      { ...DEFAULTS, allow_list: [PRODUCT] },
      makeServices('detect_injection'),
    )
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
    const verdict = await instance.onRequest?.(ctx)
    assert.equal(verdict?.kind, 'block')
    const span = ctx.findings[0]?.span
    assert.ok(span && span.start >= BENIGN.length && span.end <= text.length)
  })

  it('refuses a pattern that does not compile, is too long or matches the empty string (400)', () => {
    for (const allow_patterns of [['(unclosed'], ['x*'], [`a${'b'.repeat(300)}`]]) {
      assert.throws(() => new AllowList([], allow_patterns), settingsInvalid, allow_patterns[0].slice(0, 20))
    }
  })
})
