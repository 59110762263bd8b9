import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { type AnalyzerOptions, analyzeChunk } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import { type PiiSettings, withDefaults } from '../src/settings.js'

let standard: AnalyzerOptions
before(async () => {
  standard = await options({})
})

async function options(overrides: Partial<PiiSettings>): Promise<AnalyzerOptions> {
  return analyzerOptions(plainOptions(withDefaults(overrides)), await sharedGazetteer())
}

const found = (text: string, o: AnalyzerOptions = standard) =>
  analyzeChunk(text, o).map((d) => `${d.type}:${text.slice(d.start, d.end)}`)

describe('no personal data in code, SQL, geography or technology names', () => {
  // The prompts of issue 8, each changed or refused by 0.2.0.
  it('leaves the reported benign prompts alone', () => {
    for (const text of [
      'What is the capital of Norway?',
      'SELECT * FROM Products ORDER BY Id DESC',
      'Show the top five Products ORDER BY Id DESC, then explain the plan.',
      'Is Golang faster than Python for writing LLMs tooling?',
      'Explain how DAX measures work in Power BI.',
      'Our team value is Clarity Over Jargon.',
      'Are these valid arguments for the function?',
      'How did Corona change the server software market?',
      'Compare the oral exams in Germany, Deutschland is what locals say, and Ukraine.',
      'What software runs on the server?',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('reads no names in code blocks, inline code, identifiers or paths', () => {
    for (const text of [
      '```python\nclass UserAccount:\n    def __init__(self, Name, Address):\n        self.Name = Name\n```',
      'Rename `CustomerName` to `ClientName` in src/models/Customer.ts please.',
      'import React from "react";\nconst App = () => <Layout title="Dashboard" />;',
      'const Mercedes = new Car("Benz");',
      'UPDATE Employees SET Salary = 5000 WHERE Department = "Sales"',
    ])
      assert.deepEqual(
        found(text).filter((f) => /^(PERSON|LOCATION|ORGANIZATION)/.test(f)),
        [],
        text,
      )
  })

  it('reads no names in technology and product words', () => {
    for (const text of [
      'Should I learn Rust, Kotlin or Golang next?',
      'Deploy the Docker image to Kubernetes on AWS and watch it in Grafana.',
      'Which LLMs support function calling: GPT-4o, Claude or Gemini?',
      'Export the table from Excel to PostgreSQL with Pandas.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('names no place on its own, but a place that locates a person', () => {
    assert.deepEqual(found('Which is larger, Canada or Brazil?'), [])
    assert.deepEqual(found('Plan a three-day trip to Lisbon in May.'), [])
    assert.deepEqual(found('I live in Leeds and work from home.'), ['LOCATION:Leeds'])
    assert.deepEqual(found('Anna Berg from Oslo called.'), ['PERSON:Anna Berg', 'LOCATION:Oslo'])
  })

  it("reports every place with locations: 'all'", async () => {
    const all = await options({ locations: 'all' })
    assert.deepEqual(found('What is the capital of Norway?', all), ['LOCATION:Norway'])
  })
})

describe('ordinary words, headings and counts are not personal data', () => {
  it('reads no name in capitalised ordinary words of other languages', () => {
    for (const text of [
      'Veuillez répondre à la question suivante : combien de pommes reste-t-il ?',
      'Kila siku anakula mayai matatu.',
      'Больше всего он любит читать.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('reads no name in title-case headings', () => {
    for (const text of ['## Project Goals And Next Steps', 'Career Goals: grow into a senior role.'])
      assert.deepEqual(found(text), [], text)
  })

  it('reads no street address in counts in lower-case prose, nor in a word before a year', () => {
    for (const text of [
      'she has 20 beads per row and walks 4 miles of road to school each day, how many beads are left?',
      'During 2021 the shop sold more apples than pears.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('does not join two names across a full stop, a line break or a number', () => {
    assert.deepEqual(found('I called Robert. John answered instead.'), ['PERSON:Robert', 'PERSON:John'])
    assert.ok(!found('name,age,city\nBob,25,Los Angeles').some((f) => f.includes(',')))
  })

  it('keeps a place next to a name only where it is tied to the name', () => {
    assert.deepEqual(found('John drove to New York on Monday.'), ['PERSON:John'])
    assert.deepEqual(found('Anna Berg, Oslo, wrote to us.'), ['PERSON:Anna Berg', 'LOCATION:Oslo'])
  })

  it('reports an organisation with a legal suffix, not a lone acronym the model is unsure of', async () => {
    // On its own only with organizations: 'all' (0.6.9); beside a person's data under the default too.
    const all = await options({ organizations: 'all' })
    assert.deepEqual(found('The invoice from Brightwater Logistics GmbH is overdue.', all), [
      'ORGANIZATION:Brightwater Logistics GmbH',
    ])
    assert.deepEqual(found('The invoice from Brightwater Logistics GmbH is overdue.'), [])
    assert.deepEqual(found('The invoice from Brightwater Logistics GmbH to Anna Berg is overdue.'), [
      'ORGANIZATION:Brightwater Logistics GmbH',
      'PERSON:Anna Berg',
    ])
    assert.deepEqual(found('Send the FAQ by SMS.', all), [])
  })
})

describe('things, works, terms and labels named like people or firms', () => {
  // Classes found on the tuning part of the benign prompts (0.5.0): none of these is personal data.
  it('reads no person or firm in works, artworks, things, places and events', () => {
    for (const text of [
      'Who painted the Mona Lisa?',
      'Summarise the Harry Potter series in three sentences.',
      'Explain the ending of the movie Shutter Island.',
      'What makes the Starry Night painting so famous?',
      'Why did the Western Roman Empire fall?',
      'How far away is the Andromeda Galaxy?',
      'Describe the causes of the Irish Potato Famine.',
      'How does the Coriolis effect shape hurricanes?',
      'In quale città si trova la Torre Eiffel?',
      'Explain the significance of the Rosetta Stone.',
      'What is the seating capacity of Madison Square Garden?',
      'Tell me about the history of the Roman Republic.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('reads no organisation in acronyms of terms, and no name in teams or field labels', () => {
    for (const text of [
      'Write a function for the greatest common divisor (GCD) of two numbers.',
      'Why is AC used instead of DC in homes?',
      'Explain cognitive behavioural therapy (CBT) in simple terms.',
      'Room: 12ft x 15ft, Budget: $3,000, Style: Scandinavian. Suggest a layout.',
      'Who did the Broncos beat in the AFC Championship game?',
      'Which league do the Carolina Panthers play in?',
      'How do exchange-traded notes differ from ETFs?',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('still finds the people next to those words', async () => {
    const all = await options({ organizations: 'all' })
    const cases: [string, string[]][] = [
      // "a famous John Wyndham novel" names a famous author, left alone since 0.6.5 (test/personas-titles.test.ts).
      ['It is a John Wyndham novel.', ['PERSON:John Wyndham']],
      ['Emma Stone and Jude Law starred in it.', ['PERSON:Emma Stone', 'PERSON:Jude Law']],
      ['At 6pm, a wrap from day one of the Luke Batty inquest.', ['PERSON:Luke Batty']],
      // Since 0.6.0 a persona ("Imagine you are Leonardo da Vinci …") is no personal data: public-figures.test.ts.
      ['In 1503 Leonardo da Vinci began painting the Mona Lisa.', ['PERSON:Leonardo da Vinci']],
      ['Ask the Smith family about it.', ['PERSON:Smith']],
      ['Bill Gates and the Broncos.', ['PERSON:Bill Gates']],
      ['Madison ran 1200 meters and Gigi ran 2400 meters.', ['PERSON:Gigi']],
      ['Wakati Julia alipika chakula, Julia alifurahi.', ['PERSON:Julia', 'PERSON:Julia']],
    ]
    for (const [text, expected] of cases) assert.deepEqual(found(text), expected, text)
    // An organisation on its own is reported with organizations: 'all' only (0.6.9).
    const text = 'The National Science Foundation (NSF) funds it.'
    assert.deepEqual(found(text, all), ['ORGANIZATION:National Science Foundation'], text)
  })
})

describe('social handles in any casing', () => {
  it('finds a whole handle with digits and underscores, also in all-lower-case text', () => {
    assert.deepEqual(found('@andy_carey151 thanks for the help'), ['PERSON:andy_carey151'])
    assert.deepEqual(found('Thanks @jsmith for the review.'), ['PERSON:jsmith'])
  })

  it('skips package scopes, annotations and group mentions', () => {
    assert.deepEqual(found('npm i @types/node, then ping @here; see the @param tag.'), [])
  })
})

describe('still finds personal data', () => {
  it('finds people, organisations and contact data in prose', () => {
    assert.deepEqual(found('Please email Priya Raghunathan at priya.r@example.org about the contract.'), [
      'PERSON:Priya Raghunathan',
      'EMAIL_ADDRESS:priya.r@example.org',
    ])
    assert.deepEqual(found('Angela Merkel met Emmanuel Macron.'), [
      'PERSON:Angela Merkel',
      'PERSON:Emmanuel Macron',
    ])
    assert.deepEqual(found('Hi Olga, thanks for the update.'), ['PERSON:Olga'])
  })

  it('finds names next to code when they are in prose', () => {
    const text = 'Maria Gonzalez asked why `getUser()` fails.\n```js\ngetUser(42)\n```'
    assert.deepEqual(found(text), ['PERSON:Maria Gonzalez'])
  })

  it('finds names in SQL string literals only as far as the line is prose', () => {
    // A SQL line is code: its literals are not read. The same name in prose is.
    assert.deepEqual(found("SELECT * FROM Users WHERE Name = 'John Smith'"), [])
    assert.deepEqual(found('Find the orders of John Smith.'), ['PERSON:John Smith'])
  })
})

describe('allow-list settings', () => {
  it('drops a finding equal to, or inside, an allowed term', async () => {
    const o = await options({ allow_list: ['Clarity Partners Group'] })
    assert.deepEqual(found('Send it to Clarity Partners Group today.', o), [])
  })

  it('drops a finding whose whole value matches an allowed pattern', async () => {
    const o = await options({ allow_patterns: ['[a-z0-9.]+@example\\.(org|com)'] })
    assert.deepEqual(found('Write to jane@example.org or joe@other.net', o), ['EMAIL_ADDRESS:joe@other.net'])
  })

  it('refuses an allow pattern that does not compile with a coded 400', () => {
    assert.throws(
      () => plainOptions(withDefaults({ allow_patterns: ['(unclosed'] })),
      (err: { code?: string; status?: number }) =>
        err.code === 'GOV_ERR_STEP_SETTINGS_INVALID' && err.status === 400,
    )
  })
})

describe('hostile input', () => {
  it('analyses long one-word, base64-like and all-capitalised texts without failing', async () => {
    const { analyzeTextNow } = await import('../src/analyze-text.js')
    const base64 = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 256)).toString('base64')
    for (const text of ['a'.repeat(200_000), base64, 'Anna Berg '.repeat(20_000), '`a'.repeat(100_000)]) {
      const detections = analyzeTextNow(text, standard)
      assert.ok(Array.isArray(detections))
      for (const d of detections) assert.ok(d.start >= 0 && d.end <= text.length && d.start < d.end)
    }
  })
})

describe('model file', () => {
  it('refuses a damaged model file with a coded error', async () => {
    const { decodeModel, PII_MODEL_INVALID } = await import('../src/entities/ner-model.js')
    for (const bytes of [
      Buffer.from('not a model'),
      Buffer.concat([Buffer.from('GOVNER2\0'), Buffer.alloc(40)]),
    ])
      assert.throws(
        () => decodeModel(bytes),
        (err: { code?: string; status?: number }) => err.code === PII_MODEL_INVALID && err.status === 500,
      )
  })

  it('round-trips weights through half precision within 0.1 %', async () => {
    const { quantise, dequantise } = await import('../src/entities/ner-model.js')
    const weights = Float32Array.from([0, 1, -1, 0.001234, -57.25, 3000.5])
    const back = dequantise(quantise(weights))
    for (let k = 0; k < weights.length; k++)
      assert.ok(Math.abs(back[k] - weights[k]) <= Math.abs(weights[k]) * 0.001, `${weights[k]} → ${back[k]}`)
  })
})

describe('social handles', () => {
  it('reads an @handle in prose as a person, not a decorator in code', () => {
    assert.deepEqual(found('Thanks @jsmith for the review.'), ['PERSON:jsmith'])
    assert.deepEqual(found("@app.route('/users')\ndef users(): pass"), [])
  })
})
