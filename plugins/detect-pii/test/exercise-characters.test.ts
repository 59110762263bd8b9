import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { AnalyzerOptions } from '../src/analyze-text.js'
import { exerciseText } from '../src/exercise-characters.js'
import { defaultAnalyzerOptions, makeStep, personsIn } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
const persons = (text: string) => personsIn(text, options)

/** Word problems in English, German, Spanish, French, Russian, Italian and Swahili (written for these tests). */
const WORD_PROBLEMS = [
  'John buys 3 boxes of burritos. Each box has 20 burritos. How many burritos does John have?',
  'Anna has 50 pencils and Harry has twice as many. How many pencils do they have together?',
  'Peter reads 12 pages a day. After 5 days, what is the total number of pages he has read?',
  'Marissa wandert einen 12 Meilen langen Wanderweg. Wie viele Stunden braucht sie bei 3 Meilen pro Stunde?',
  'Jonas hat dreimal so viele Murmeln wie Lukas. Lukas hat 7 Murmeln. Wie viele Murmeln hat Jonas?',
  'Judy enseña 5 clases de baile cada día. ¿Cuántas clases enseña en 6 días?',
  'Pablo tiene 12 manzanas y le da 4 a Lucía. ¿Cuántas manzanas le quedan a Pablo?',
  'Camille achète 4 croissants à 2 euros chacun. Combien Camille paie-t-elle ?',
  'Julien a 15 billes et en perd 6. Combien de billes reste-t-il à Julien ?',
  'У Чарли в три раза больше друзей, чем у Дороти. У Дороти 4 друга. Сколько друзей у Чарли?',
  'Марина купила 5 яблок и съела 2. Сколько яблок осталось у Марины?',
  'Giulia compra 3 libri a 12 euro. Quanto spende Giulia?',
  'Pete ana dola 42 za kutumia kwa wiki. Ni mara ngapi anaweza kwenda kwenye filamu?',
  'Josh built a sandbox 2 feet high. The perimeter is 30 feet and the length is 10 feet. What is the width?',
]

/** Requests for stories, dialogues and role-plays that introduce their characters. */
const STORIES = [
  'Create a dialogue between two characters, Alex and Jamie, about climate change.',
  'Write a story about a girl named Lily who finds a dragon egg.',
  'Imagine a fantasy world where a young wizard called Theo must save his village.',
  'Schreibe eine Geschichte über einen Jungen namens Felix, der einen Drachen findet.',
  'Escribe un cuento sobre una niña llamada Sofía que encuentra un perro.',
  'Écris une histoire sur un garçon nommé Hugo qui rêve de voler.',
  'Напиши рассказ о девочке по имени Маша, которая нашла котёнка.',
]

/** Programming exercises with sample data (0.6.5). */
const CODE_EXERCISES = [
  'Write a Python script that reads a CSV file and prints the average age.\n\nname,age\nAlice,30\nBob,25',
  'Create a JavaScript function that filters users older than 30.\n\n[{"name": "Sarah", "age": 45}]',
]

/** Real messages with digits, or exercises that also carry personal data or a cue of a real person: still masked. */
const STILL_MASKED: [string, string][] = [
  ['Meeting with Sarah at 3pm tomorrow about the Q3 numbers', 'Sarah'],
  ['Transfer $200 to Mark Jensen', 'Mark Jensen'],
  ['Tell Anna her invoice 4471 is overdue', 'Anna'],
  ['Anna has 5 apples. How many apples does Anna have? Email anna.berg@example.com with the answer.', 'Anna'],
  ['My name is Sarah and I have 3 cats. How many legs do my cats have in total?', 'Sarah'],
  ['Dear Oliver, how many tickets did we sell for the 3 concerts?', 'Oliver'],
  ['My sister Jenna has 4 dogs. How many dogs does Jenna have if she adopts 2 more?', 'Jenna'],
  // A titled character of a worked problem is unmasked since 0.6.7 (titled-characters.test.ts), not a colleague.
  [
    'Mr. Trent from our office sells 20 shirts a day. How many shirts does Mr. Trent sell in 5 days?',
    'Trent',
  ],
  ['Write a story about my colleague Lisa, who won 3 prizes.', 'Lisa'],
  ['Write a summary of the conversation between Tom and Lisa about the budget.', 'Lisa'],
  ['Call Sarah at 555-0199 about the 3 boxes. How many boxes are left?', 'Sarah'],
  ['Wie viele Stunden hat Jonas Müller am 3. Mai gearbeitet? Er hat 8 Stunden gearbeitet.', 'Jonas Müller'],
  ['Hola, me llamo Lucía y tengo 3 perros. ¿Cuántas patas tienen?', 'Lucía'],
  // An address of a real domain keeps the names (example.com names no one since 0.6.6).
  ['Write a script that emails the report.\n\nname,email\nAlice,alice@gmail.com', 'Alice'],
]

describe('characters of exercises and requested stories are no personal data (0.6.5)', () => {
  it('recognises word problems and story requests, not ordinary messages', () => {
    for (const text of [...WORD_PROBLEMS, ...STORIES]) assert.equal(exerciseText(text), true, text)
    for (const text of [
      'Meeting with Sarah at 3pm tomorrow about the Q3 numbers',
      'Tell Anna her invoice 4471 is overdue',
      'Please send the 3 reports to Mark before Friday.',
      'What did Mark say about the report?',
    ])
      assert.equal(exerciseText(text), false, text)
  })

  it('leaves the lone given names of word problems in EN, DE, ES, FR, RU, IT and SW unmasked', () => {
    for (const text of WORD_PROBLEMS) assert.deepEqual(persons(text), [], text)
  })

  it('leaves the characters of a requested story, dialogue or role-play unmasked', () => {
    for (const text of STORIES) assert.deepEqual(persons(text), [], text)
  })

  it('leaves the sample data of a programming exercise unmasked', () => {
    for (const text of CODE_EXERCISES) assert.deepEqual(persons(text), [], text)
  })

  it('still masks names in real messages with digits and in exercises with other personal data or cues', () => {
    for (const [text, name] of STILL_MASKED)
      assert.ok(persons(text).includes(name), `${text}: ${persons(text)}`)
  })

  it('masks a word problem through the step, and refuses none of it under strict', async () => {
    const { step } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
    })
    const { makeExchange, makeRequestContext } = await import('@gov/core/testing')
    const problem = makeRequestContext(makeExchange([{ source: 'user', text: WORD_PROBLEMS[0] }]))
    await step.onRequest?.(problem)
    assert.deepEqual(problem.findings, [])
    const real = makeRequestContext(makeExchange([{ source: 'user', text: 'Transfer $200 to Mark Jensen' }]))
    await step.onRequest?.(real)
    assert.ok(real.findings.some((f) => f.type === 'PERSON'))
    await step.close?.()
  })
})
