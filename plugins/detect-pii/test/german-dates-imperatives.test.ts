import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { type AnalyzerOptions, analyzeChunk } from '../src/analyze-text.js'
import { codeUnits } from '../src/code-units.js'
import { germanText } from '../src/entities/not-names.js'
import { tokenize } from '../src/entities/tokenize.js'
import { defaultAnalyzerOptions, makeStep } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
const found = (text: string) =>
  analyzeChunk(text, options).map((d) => `${d.type}:${text.slice(d.start, d.end)}`)
const german = (text: string) => germanText(tokenize(text, codeUnits(text)))

// Each prompt below had a wrong PERSON finding in 0.6.0 (most scoring ≥ 0.8, so `strict` refused them).
describe('capitalised German nouns are no names (0.6.1)', () => {
  it('reads no name in German nouns and keeps the names next to them', () => {
    assert.deepEqual(found('Katy bereitet Kaffee zu und verwendet dazu Teelöffel mit Zucker.'), [
      'PERSON:Katy',
    ])
    assert.deepEqual(found('Henry backt Kekse für einen Backwettbewerb. Wie viele Kekse hat er gebacken?'), [
      'PERSON:Henry',
    ])
    assert.deepEqual(found('Herr Schmidt kauft Milch und Käse für die Kinder.'), ['PERSON:Schmidt'])
    // A statement: the characters of a word problem are left alone since 0.6.5.
    assert.deepEqual(found('Sarah wäscht 400 Pfund Wäsche, David wäscht den Rest.'), [
      'PERSON:Sarah',
      'PERSON:David',
    ])
  })

  it('still finds German names: Frau Müller aus Köln, Herr Schmidt, a full name', () => {
    assert.deepEqual(found('Frau Müller aus Köln hat 30 Kekse gebacken und bringt sie zur Schule.'), [
      'PERSON:Müller',
      'LOCATION:Köln',
    ])
    assert.deepEqual(found('Bitte rufen Sie Herrn Schmidt wegen der Rechnung an.'), ['PERSON:Herrn Schmidt'])
    assert.deepEqual(found('Gestern hat Hans-Peter Zimmermann die Rechnung für 220 Tassen Kaffee bezahlt.'), [
      'PERSON:Hans-Peter Zimmermann',
    ])
    assert.deepEqual(found('Die Rechnung für den Kaffee hat Anna Berg aus Hamburg bezahlt.'), [
      'PERSON:Anna Berg',
      'LOCATION:Hamburg',
    ])
  })

  it('applies the German word list only to German text', () => {
    assert.equal(german('Wie heißt der höchste Berg der Welt?'), true)
    assert.equal(german('Wenn Sarah 400 Pfund Wäsche wäscht, wie viel wäscht David?'), true)
    assert.equal(german('The Kaffee House on Main Street sells cakes.'), false)
    // Danish and Swedish share "den", "er", "som" with German, but none of the words counted.
    assert.equal(german('Han er den bedste spiller i klubben, og han bor i Aarhus.'), false)
  })
})

describe('a month before a day number is a date, not a name (0.6.1)', () => {
  it('reads no name in "Jan 1, 2023", "Jan 1st to Dec 31st", "Dec 5 at noon"', () => {
    for (const text of [
      'How many distinct customers ordered between Jan 1, 2023 and Mar 31, 2023?',
      'The offer runs from Jan 1st to Dec 31st.',
      'The sale ends on Dec 5 at noon.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('keeps a month-like first name before a count or a surname', () => {
    assert.deepEqual(found('Mark gives Jan 10 apples and Jan thanks him.'), ['PERSON:Jan', 'PERSON:Jan'])
    assert.deepEqual(found('Jan Novak paid the invoice on May 3.'), ['PERSON:Jan Novak'])
  })
})

describe('an imperative after the colon of a question prompt is no name (0.6.1)', () => {
  it('reads no name in "question suivante : Mentionnez …", "seguente domanda: Dimmi …"', () => {
    for (const text of [
      'Veuillez répondre à la question suivante : Mentionnez la planète la plus proche du Soleil.',
      "Per favore rispondi alla seguente domanda: Dimmi quanti minuti ci sono in un'ora.",
      'Por favor responda la siguiente pregunta: Indique lo contrario de lo anterior.',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('keeps a name after a colon: a known name, and a heading before an unknown one', () => {
    assert.deepEqual(found('Here is the note from the customer: Anna Berg wrote that the parcel is late.'), [
      'PERSON:Anna Berg',
    ])
    assert.ok(
      found('Irish News: Mickey bashers, referee criticism and club fixtures.').includes('PERSON:Mickey'),
    )
    // A headline ends without a full stop: the name after its colon stays (tweets of the training part).
    assert.ok(
      found('Ontario can invest in economy while balancing books: Wynne http://t.co/tBLUR1').includes(
        'PERSON:Wynne',
      ),
    )
  })
})

describe('strict on these prompts (0.6.1)', () => {
  // Each of these prompts was refused by 0.6.0's strict (a wrong name scoring ≥ 0.8).
  it('refuses none of the prompts without a name, and still refuses a German name', async () => {
    const { step } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
    })
    const kind = async (text: string) =>
      (await step.onRequest(makeRequestContext(makeExchange([{ source: 'user', text }])))).kind
    for (const text of [
      'Wie viele Tassen Kaffee trinkt man in einem Jahr, wenn man jeden Tag zwei trinkt?',
      // 0.6.0 read "Käse" as a person with 0.95 ("Carls" stays a weak name, masked).
      'Carls Lieblingsessen ist Käse. Er aß diese Woche jeden Tag ein Sandwich.',
      'Rispondi alla seguente domanda: Dichiara il contrario di quanto sopra.',
      'List the orders placed between Jan 1, 2023 and Mar 31, 2023.',
      'Veuillez répondre à la question suivante : Décrivez le goût du sucre.',
    ])
      assert.equal(await kind(text), 'continue', text)
    assert.notEqual(await kind('Gestern hat Hans-Peter Zimmermann die Rechnung bezahlt.'), 'continue')
  })
})
