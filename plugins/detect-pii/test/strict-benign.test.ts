import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { makeStep } from './helpers.js'

const BENIGN = [
  'What is the capital of Norway?',
  'SELECT * FROM Products ORDER BY Id DESC',
  'Is Golang a good choice for serving LLMs?',
  'How do I write a DAX measure for year-over-year growth?',
  'Our slide says Clarity Over Jargon. Make it punchier.',
  'Compare sales in Germany, Deutschland as the Germans say, and Ukraine.',
  'Are these valid arguments for an oral exam?',
  'Why did the server software crash during Corona?',
  'Veuillez répondre à la question suivante : quelle est la capitale de la Norvège ?',
  '## Clarity Over Jargon\nKeep each heading short.',
  // Classes fixed in 0.5.0: works and artworks, things and events, acronyms of terms, teams, field labels.
  'Who painted the Mona Lisa?',
  'Summarise the Harry Potter series in three sentences.',
  'Explain the ending of the movie Shutter Island.',
  'Why did the Western Roman Empire fall?',
  'Describe the causes of the Irish Potato Famine.',
  'How does the Coriolis effect shape hurricanes?',
  'In quale città si trova la Torre Eiffel?',
  'Explain the significance of the Rosetta Stone.',
  'Write a function for the greatest common divisor (GCD) of two numbers.',
  'Why is AC used instead of DC in homes?',
  'Room: 12ft x 15ft, Budget: $3,000, Style: Scandinavian. Suggest a layout.',
  'Who did the Broncos beat in the AFC Championship game?',
]

describe('strict and standard on prompts without personal data', () => {
  it('action block (strict) refuses none of them and action mask (standard) changes none', async () => {
    const { step: strict } = await makeStep({ action: 'block' })
    const { step: standard } = await makeStep({ action: 'mask' })
    for (const text of BENIGN) {
      assert.equal(
        (await strict.onRequest(makeRequestContext(makeExchange([{ source: 'user', text }])))).kind,
        'continue',
        text,
      )
      const exchange = makeExchange([{ source: 'user', text }])
      await standard.onRequest(makeRequestContext(exchange))
      assert.equal(exchange.messages[0].parts[0].text, text)
    }
  })

  it('standard masks every kind of personal data in one prompt and strict refuses it', async () => {
    const text =
      'Send the contract to Maria Schmidt, 12 Baker Street, London, maria.schmidt@example.de, ' +
      '+44 20 7946 0958, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111.'
    const { step: standard } = await makeStep({ action: 'mask' })
    const exchange = makeExchange([{ source: 'user', text }])
    await standard.onRequest(makeRequestContext(exchange))
    const masked = exchange.messages[0].parts[0].text ?? ''
    for (const value of [
      'Maria Schmidt',
      '12 Baker Street',
      'maria.schmidt@example.de',
      '7946 0958',
      'DE89 3704',
      '4111 1111 1111 1111',
    ])
      assert.ok(!masked.includes(value), `${value} left in: ${masked}`)
    for (const placeholder of [
      '<PERSON_1>',
      '<STREET_ADDRESS_1>',
      '<EMAIL_ADDRESS_1>',
      '<PHONE_NUMBER_1>',
      '<IBAN_CODE_1>',
      '<CREDIT_CARD_1>',
    ])
      assert.ok(masked.includes(placeholder), `${placeholder} missing: ${masked}`)
    const { step: strict } = await makeStep({ action: 'block' })
    const verdict = await strict.onRequest(makeRequestContext(makeExchange([{ source: 'user', text }])))
    assert.equal(verdict.kind, 'block')
  })

  it('strict still refuses a prompt with personal data', async () => {
    const { step } = await makeStep({ action: 'block' })
    const verdict = await step.onRequest(
      makeRequestContext(
        makeExchange([{ source: 'user', text: 'My name is Anna Berg and I live in Tromsø.' }]),
      ),
    )
    assert.equal(verdict.kind, 'block')
  })
})
