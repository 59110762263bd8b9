import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeAnswer, makeExchange, makeRequestContext, makeResponseContext } from '@gov/core/testing'
import { PII_BLOCK_CODE, PiiSettings } from '../src/index.js'
import { withDefaults } from '../src/settings.js'
import { makeStep } from './helpers.js'

const userSays = (text: string) => makeExchange([{ source: 'user', text }])
/** A word problem whose only name is read with a score below 0.8 (checked in each test). */
/** A lone name the tagger scores below 0.8; no question, so no word problem (0.6.5 leaves their characters alone). */
const WEAK_NAME = 'Rollo has 3 guinea pigs and feeds them twice a day.'
/**
 * No personal data; the tagger reads the German noun "Wasser" (water) as a name, below 0.8 (a surname too, so not
 * in `model/german-words.txt`; "Zucker", used here before 0.6.1, is no longer read as a name).
 */
const DOUBTFUL = 'Bitte beantworten Sie folgende Frage: Was bekommt man, wenn man Wasser einfriert?'

describe('block_min_score: under action block only sure findings refuse', () => {
  it('defaults to 0: every reported finding refuses, as before 0.6.0', async () => {
    assert.equal(withDefaults().block_min_score, 0)
    const { step } = await makeStep({ action: 'block' })
    assert.equal((await step.onRequest(makeRequestContext(userSays(WEAK_NAME)))).kind, 'block')
    assert.equal((await step.onRequest(makeRequestContext(userSays(DOUBTFUL)))).kind, 'block')
  })

  it('masks a weak name instead of refusing, restores it in the answer and reports it as masked', async () => {
    const { step } = await makeStep({ action: 'block', block_min_score: 0.8 })
    for (const text of [WEAK_NAME, DOUBTFUL]) {
      const state = new Map<string, unknown>()
      const ex = userSays(text)
      const ctx = makeRequestContext(ex, { state })
      assert.equal((await step.onRequest(ctx)).kind, 'continue', text)
      assert.ok(ctx.findings.length > 0, text)
      for (const f of ctx.findings) {
        assert.equal(f.type, 'PERSON', text)
        assert.ok(f.score < 0.8, `${text}: score ${f.score} is not below 0.8, the test needs another text`)
        assert.deepEqual(f.detail, { action: 'mask' })
      }
      const sent = ex.messages[0].parts[0].text
      assert.match(sent, /<PERSON_1>/)
      assert.ok(!sent.includes('Rollo') && !sent.includes('Wasser'), sent)
      const answer = makeAnswer(`You wrote: ${sent}`)
      assert.equal(
        (await step.onBufferedResponse(makeResponseContext(ex, answer, { state }))).kind,
        'continue',
      )
      assert.equal(answer.message.parts[0].text, `You wrote: ${text}`)
    }
  })

  it('still refuses a name at or above the value, and names only the refusing types', async () => {
    const { step } = await makeStep({ action: 'block', block_min_score: 0.8 })
    const ctx = makeRequestContext(userSays(`Please ask Anna Berg about it. ${WEAK_NAME}`))
    const verdict = await step.onRequest(ctx)
    assert.equal(verdict.kind, 'block')
    if (verdict.kind !== 'block') return
    assert.equal(verdict.code, PII_BLOCK_CODE)
    assert.equal(verdict.reason, 'personal data detected: PERSON')
    const anna = ctx.findings.find((f) => f.score >= 0.8)
    assert.deepEqual(anna?.detail, { action: 'block' })
  })

  it('always refuses structured findings, whatever their score', async () => {
    const { step } = await makeStep({ action: 'block', block_min_score: 0.99 })
    for (const text of [
      'Phone: 030 123456', // a national number with a context word: score 0.75
      'Mail jane.doe@example.com',
      'Card 4111 1111 1111 1111',
      'IBAN DE89 3704 0044 0532 0130 00',
      'SSN 536-32-3065',
    ]) {
      const ctx = makeRequestContext(userSays(text))
      assert.equal((await step.onRequest(ctx)).kind, 'block', text)
      assert.ok(ctx.findings.length > 0 && ctx.findings.every((f) => f.type !== 'PERSON'), text)
    }
    const low = makeRequestContext(userSays('Phone: 030 123456'))
    await step.onRequest(low)
    assert.ok(low.findings[0].score < 0.99)
  })

  it('applies to the action the caller flag pii=block asks for on a mask pipeline', async () => {
    const { step } = await makeStep({ action: 'mask', block_min_score: 0.8 })
    const flags = new Map([['pii', 'block']])
    const weak = userSays(WEAK_NAME)
    assert.equal((await step.onRequest(makeRequestContext(weak, { call: { flags } }))).kind, 'continue')
    assert.match(weak.messages[0].parts[0].text, /<PERSON_1> has 3 guinea pigs/)
    const strong = userSays('Forward this to Anna Berg, anna.berg@example.no.')
    assert.equal((await step.onRequest(makeRequestContext(strong, { call: { flags } }))).kind, 'block')
    // Without the flag the pipeline's own action (mask) applies to both.
    assert.equal(
      (await step.onRequest(makeRequestContext(userSays('Forward this to Anna Berg.')))).kind,
      'continue',
    )
  })

  it('is ignored under mask and allow', async () => {
    for (const action of ['mask', 'allow'] as const) {
      const { step } = await makeStep({ action, block_min_score: 1 })
      const ctx = makeRequestContext(userSays('Forward this to Anna Berg, anna.berg@example.no.'))
      assert.equal((await step.onRequest(ctx)).kind, 'continue')
      assert.ok(ctx.findings.every((f) => (f.detail as { action: string }).action === action))
    }
  })

  it('in the answer: a weak new name is reported and left, a sure one refuses the answer', async () => {
    const { step } = await makeStep({ action: 'block', block_min_score: 0.8 })
    const ex = userSays('Name a guinea pig owner for my story.')
    const weak = makeResponseContext(ex, makeAnswer(WEAK_NAME))
    assert.equal((await step.onBufferedResponse(weak)).kind, 'continue')
    assert.equal(weak.answer.message.parts[0].text, WEAK_NAME)
    assert.ok(weak.findings.length > 0 && weak.findings.every((f) => f.score < 0.8))
    const sure = makeResponseContext(ex, makeAnswer('Ask Anna Berg, she owns three.'))
    assert.equal((await step.onBufferedResponse(sure)).kind, 'block')
  })

  it('mask_only_types: an organisation is masked and restored, never refuses; a person with it still does', async () => {
    assert.deepEqual(withDefaults().mask_only_types, [])
    // A statement: an organisation asked about in a question is no finding since 0.6.6. On its own it is a finding
    // only with `organizations: 'all'` since 0.6.9 (test/organizations.test.ts).
    const org = 'Send the parcel with the USPS today.'
    const { step: before } = await makeStep({ action: 'block', block_min_score: 0.8, organizations: 'all' })
    assert.equal((await before.onRequest(makeRequestContext(userSays(org)))).kind, 'block')
    const { step } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
      organizations: 'all',
    })
    const state = new Map<string, unknown>()
    const ex = userSays(org)
    const ctx = makeRequestContext(ex, { state })
    assert.equal((await step.onRequest(ctx)).kind, 'continue')
    assert.equal(ctx.findings[0]?.type, 'ORGANIZATION')
    assert.ok(ctx.findings[0].score >= 0.8)
    assert.deepEqual(ctx.findings[0].detail, { action: 'mask' })
    assert.equal(ex.messages[0].parts[0].text, 'Send the parcel with the <ORGANIZATION_1> today.')
    const answer = makeAnswer('The <ORGANIZATION_1> prices by zone.')
    await step.onBufferedResponse(makeResponseContext(ex, answer, { state }))
    assert.equal(answer.message.parts[0].text, 'The USPS prices by zone.')
    const verdict = await step.onRequest(makeRequestContext(userSays('Ask Anna Berg at the USPS about it.')))
    assert.equal(verdict.kind, 'block')
    if (verdict.kind === 'block') assert.equal(verdict.reason, 'personal data detected: PERSON')
  })

  it('is a number from 0 to 1 in the settings schema', () => {
    const schema = PiiSettings.properties.block_min_score as unknown as Record<string, unknown>
    assert.deepEqual([schema.type, schema.minimum, schema.maximum, schema.default], ['number', 0, 1, 0])
  })
})
