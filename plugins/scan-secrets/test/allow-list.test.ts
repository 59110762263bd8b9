import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCAN_SECRETS_ERRORS } from '../src/index.js'
import { alnum } from './fixtures.js'
import { makeStep, scanText } from './helpers.js'

// An internal fixture id that looks random: the admin's known false positive.
const FIXTURE = `FX9${alnum(29)}`
const TEXT = `Load fixture ${FIXTURE} before the run.`

describe('allow-list', () => {
  it('the example is a false positive to begin with', () => {
    assert.deepEqual(
      scanText(TEXT).map((f) => f.type),
      ['high_entropy_string'],
    )
  })

  it('a term silences that exact value and nothing else', async () => {
    const step = await makeStep({ action: 'allow', allow_list: [FIXTURE] })
    assert.equal(scanText(TEXT, step).length, 0)
    assert.equal(scanText(`Load fixture ${alnum(32)} now`, step).length, 1)
  })

  it('a pattern silences every value it matches, without lowering min_score', async () => {
    const step = await makeStep({ action: 'allow', allow_patterns: ['^FX9[A-Za-z0-9]{29}$'] })
    assert.equal(scanText(TEXT, step).length, 0)
    assert.equal(scanText(`Load fixture FX9${alnum(29)} too`, step).length, 0)
    assert.equal(scanText(`api_key = "${alnum(40)}"`, step).length, 1, 'other secrets are still reported')
  })

  for (const [name, pattern] of [
    ['does not compile', '([a-z'],
    ['nests quantifiers', '(a+)+$'],
    ['matches the empty string', '.*'],
    ['is too long', `a{1,2}${'b'.repeat(200)}`],
  ]) {
    it(`refuses at load a pattern that ${name}`, async () => {
      await assert.rejects(makeStep({ allow_patterns: [pattern] }), {
        code: SCAN_SECRETS_ERRORS.ALLOW_LIST_INVALID,
        status: 400,
      })
    })
  }
})
