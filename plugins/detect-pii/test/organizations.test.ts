import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import type { AnalyzerOptions } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { PiiSettings, withDefaults } from '../src/settings.js'
import { describeClasses, findingsOf, makeStep, strictVerdict } from './helpers.js'

const userSays = (text: string) => makeExchange([{ source: 'user', text }])

/**
 * 0.6.9 (issue 8): an organisation named on its own is no one's personal data; with `organizations: 'personal'`
 * (default) it is a finding only in a text that also holds a person's data. The first four benign prompts are
 * issue 8's and a tuning benign prompt; the others and every person prompt were written for these tests.
 */
describeClasses(
  'organisations beside personal data only (0.6.9)',
  [
    {
      name: 'an organisation on its own; with a name, contact detail or a place that locates a person',
      benign: [
        'Our parcels go out with the USPS every Monday.',
        'Send the parcel with the USPS today.',
        'Our slide says Clarity Over Jargon; are these valid arguments for an oral exam?',
        'Count the number of United Airlines flights that arrive in Aberdeen.',
        'SETimes: Can you comment on the attacks on KFOR?',
        'The invoice from Brightwater Logistics GmbH is overdue.',
        // A place named on its own keeps none either (it is no finding itself under `locations: 'personal'`).
        'Our parcels go out with the USPS from Oslo every Monday.',
      ],
      person: [
        [
          'Forward the Globex Partners contract to Anna Berg.',
          ['ORGANIZATION:Globex Partners!', 'PERSON:Anna Berg!'],
        ],
        // The whole text counts, not a distance: the person's employer, bank or school may be sentences away.
        [
          'Anna Berg joined in 2019. Globex Partners pays her salary.',
          ['PERSON:Anna Berg!', 'ORGANIZATION:Globex Partners!'],
        ],
        [
          'Send the invoice from Brightwater Logistics GmbH to accounts@example.org.',
          ['ORGANIZATION:Brightwater Logistics GmbH!', 'EMAIL_ADDRESS:accounts@example.org!'],
        ],
        [
          'I live in Leeds and bank with Barclays Bank PLC.',
          ['LOCATION:Leeds', 'ORGANIZATION:Barclays Bank PLC.!'],
        ],
      ],
    },
  ],
  [
    'Forward the Globex Partners contract to Anna Berg.',
    'Anna Berg joined in 2019. Globex Partners pays her salary.',
  ],
)

describe("organizations: 'all' and the settings schema", () => {
  const options = async (overrides: Partial<PiiSettings>): Promise<AnalyzerOptions> =>
    analyzerOptions(plainOptions(withDefaults(overrides)), await sharedGazetteer())
  let all: AnalyzerOptions
  let placesToo: AnalyzerOptions
  before(async () => {
    all = await options({ organizations: 'all' })
    placesToo = await options({ locations: 'all' })
  })

  it("defaults to 'personal' and takes 'all'", () => {
    const schema = PiiSettings.properties.organizations as unknown as {
      default: string
      anyOf: { const: string }[]
    }
    assert.equal(schema.default, 'personal')
    assert.deepEqual(
      schema.anyOf.map((s) => s.const),
      ['personal', 'all'],
    )
    assert.equal(withDefaults().organizations, 'personal')
  })

  it("reports every organisation with 'all', as before 0.6.9", () => {
    assert.deepEqual(findingsOf('Our parcels go out with the USPS every Monday.', all), [
      'ORGANIZATION:USPS!',
    ])
    assert.deepEqual(findingsOf('The invoice from Brightwater Logistics GmbH is overdue.', all), [
      'ORGANIZATION:Brightwater Logistics GmbH!',
    ])
  })

  it('an IP address (a machine as often as a person) keeps no organisation', async () => {
    const text = 'Brightwater Logistics GmbH has moved its servers to 10.0.0.12.'
    assert.deepEqual(findingsOf(text, await options({})), ['IP_ADDRESS:10.0.0.12!'])
    assert.deepEqual(findingsOf(text, all), [
      'ORGANIZATION:Brightwater Logistics GmbH!',
      'IP_ADDRESS:10.0.0.12!',
    ])
  })

  it("with locations: 'all' a place keeps an organisation only where it locates a person", () => {
    assert.deepEqual(findingsOf('Our parcels go out with the USPS from Oslo every Monday.', placesToo), [
      'LOCATION:Oslo!',
    ])
    assert.deepEqual(findingsOf('I live in Leeds and bank with Barclays Bank PLC.', placesToo), [
      'LOCATION:Leeds!',
      'ORGANIZATION:Barclays Bank PLC.!',
    ])
  })

  it('masks an organisation beside a person together with the person, leaves one on its own alone', async () => {
    const { step } = await makeStep()
    const alone = userSays('Our parcels go out with the USPS every Monday.')
    const ctx = makeRequestContext(alone)
    assert.equal((await step.onRequest(ctx)).kind, 'continue')
    assert.deepEqual(ctx.findings, [])
    assert.equal(alone.messages[0].parts[0].text, 'Our parcels go out with the USPS every Monday.')
    const both = userSays('Forward the Globex Partners contract to Anna Berg.')
    await step.onRequest(makeRequestContext(both))
    assert.equal(both.messages[0].parts[0].text, 'Forward the <ORGANIZATION_1> contract to <PERSON_1>.')
  })

  it("under strict settings with 'all' an organisation on its own is masked, never refused", async () => {
    const { step } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
      organizations: 'all',
    })
    assert.deepEqual(await strictVerdict(step, 'Our parcels go out with the USPS every Monday.'), {
      kind: 'continue',
      text: 'Our parcels go out with the <ORGANIZATION_1> every Monday.',
    })
  })
})
