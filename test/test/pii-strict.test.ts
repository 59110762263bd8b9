/**
 * detect_pii's `block_min_score` through a running gateway (issue 8): under the
 * strict preset a prompt without personal data is not refused, also when the
 * tagger reads a doubtful capitalised word as a name (that word is masked and
 * restored in the answer instead), nor for an organisation (on its own no
 * personal data since detect_pii 0.6.9: passed unchanged; beside a person
 * masked with the person); a real name, a name with an e-mail and a card are
 * refused. The caller flag pii=block on the standard preset behaves the same way.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startTestGateway, type TestGateway } from '@gov/host/testing'
import OpenAI from 'openai'

/** The prompts of issue 8 and classes fixed since: no personal data in any. */
const BENIGN = [
  'What is the capital of Norway?',
  'SELECT ProductName FROM Products ORDER BY Id DESC',
  'Is Golang a good choice for serving LLMs on our server?',
  'How do I write a DAX measure for year-over-year growth?',
  'Compare Germany, Deutschland as locals say, and Ukraine on software exports.',
  'Our slide says Clarity Over Jargon; are these valid arguments for an oral exam?',
  'Why did the server software crash during Corona?',
  'Who was Albert Einstein?',
  'Write a poem in the style of Emily Dickinson.',
]
/**
 * No personal data, but the tagger reads the German noun "Wasser" (water; also a surname, so not in the package's
 * German word list) as a name with a score below 0.8 (the package's block-min-score test checks the score).
 */
const DOUBTFUL = 'Bitte beantworten Sie folgende Frage: Was bekommt man, wenn man Wasser einfriert?'
const NAME_AND_EMAIL = 'Forward this to Anna Berg, anna.berg@example.no.'

const isPiiRefusal = (err: { status?: number; error?: { code?: string } }) =>
  err.status === 403 && err.error?.code === 'pii_detected'

describe('detect_pii block_min_score through the gateway (strict preset, pii=block)', () => {
  let t: TestGateway
  let strict: OpenAI
  let standard: OpenAI
  const lastSent = () => JSON.stringify(t.mock.requests.at(-1)?.body)
  const ask = (client: OpenAI, content: string, flags?: string) =>
    client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] },
      flags ? { headers: { 'X-Gov-Flags': flags } } : undefined,
    )

  before(async () => {
    t = await startTestGateway({ plugins: [] })
    const suffix = randomBytes(4).toString('hex')
    await t.createPipeline(`strict-${suffix}`, 'strict')
    await t.createPipeline(`std-${suffix}`, 'standard')
    strict = new OpenAI({
      apiKey: await t.createAgent(`strict-${suffix}`, `strict-${suffix}`),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
    standard = new OpenAI({
      apiKey: await t.createAgent(`std-${suffix}`, `std-${suffix}`),
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
    })
  })
  after(() => t.close())

  it('strict passes prompts without personal data, unchanged', async () => {
    for (const text of BENIGN) {
      const res = await ask(strict, text)
      assert.equal(res.choices[0].message.content, text)
      assert.ok(lastSent().includes(JSON.stringify(text).slice(1, -1)), `changed upstream: ${lastSent()}`)
    }
  })

  it('strict masks a doubtful word instead of refusing, and restores it in the answer', async () => {
    const res = await ask(strict, DOUBTFUL)
    assert.ok(!lastSent().includes('Wasser'), `provider saw the value: ${lastSent()}`)
    assert.match(lastSent(), /<PERSON_1>/)
    assert.equal(res.choices[0].message.content, DOUBTFUL, 'the agent gets the word back')
  })

  it('strict passes an organisation named on its own unchanged (no personal data of a person)', async () => {
    // An organisation asked about ("How does the USPS price parcels?") is a topic since detect_pii 0.6.6; one
    // named in a statement without a person's data is no finding since 0.6.9 (setting organizations: 'personal').
    const text = 'Our parcels go out with the USPS every Monday.'
    const res = await ask(strict, text)
    assert.equal(res.choices[0].message.content, text)
    assert.ok(lastSent().includes(text), `changed upstream: ${lastSent()}`)
    assert.doesNotMatch(lastSent(), /<ORGANIZATION_1>/)
  })

  it('an organisation beside a person is masked with the person (standard), and strict refuses the person', async () => {
    const text = 'Forward the Globex Partners contract to Anna Berg.'
    const res = await ask(standard, text)
    assert.ok(
      !lastSent().includes('Globex') && !lastSent().includes('Anna Berg'),
      `provider saw: ${lastSent()}`,
    )
    assert.match(lastSent(), /<ORGANIZATION_1>/)
    assert.match(lastSent(), /<PERSON_1>/)
    assert.equal(res.choices[0].message.content, text, 'the agent gets both back')
    await assert.rejects(ask(strict, text), isPiiRefusal)
  })

  it('strict refuses a real name with an e-mail address, and a name alone', async () => {
    await assert.rejects(ask(strict, NAME_AND_EMAIL), isPiiRefusal)
    await assert.rejects(ask(strict, 'Please ask Anna Berg about the invoice.'), isPiiRefusal)
    await assert.rejects(ask(strict, 'Card 4111 1111 1111 1111, please.'), isPiiRefusal)
  })

  it('pii=block on standard refuses and masks exactly as strict does', async () => {
    const res = await ask(standard, DOUBTFUL, 'pii=block')
    assert.equal(res.choices[0].message.content, DOUBTFUL)
    assert.ok(!lastSent().includes('Wasser'))
    await assert.rejects(ask(standard, NAME_AND_EMAIL, 'pii=block'), isPiiRefusal)
    // Without the flag standard masks both.
    const masked = await ask(standard, NAME_AND_EMAIL)
    assert.equal(masked.choices[0].message.content, NAME_AND_EMAIL)
    assert.ok(!lastSent().includes('anna.berg@example.no'))
  })
})
