import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { AnalyzerOptions } from '../src/analyze-text.js'
import { defaultAnalyzerOptions, personsIn } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
const persons = (text: string) => personsIn(text, options)

describe('names that are the topic of a knowledge question, or a persona to play (0.6.0)', () => {
  it('leaves public figures and works in questions and requests alone', () => {
    for (const text of [
      'Who was Albert Einstein?',
      'Who is Taylor Swift?',
      'Explain Newton’s laws of motion.',
      "Explain Newton's laws of motion in simple terms.",
      'Summarize Shakespeare’s famous plays.',
      'Write a poem in the style of Emily Dickinson.',
      'Show me famous paintings by Van Gogh.',
      'Describe the paintings of Vincent van Gogh.',
      'Can you provide details about the vision and philosophy of Jeff Bezos towards e-commerce?',
      'What are the main ideas in the writings of Simone de Beauvoir?',
    ])
      assert.deepEqual(persons(text), [], text)
  })

  it('leaves a persona the assistant is asked to play alone, with its other mentions', () => {
    for (const text of [
      'You are Nikola Tesla. Explain alternating current to an investor.',
      'Roleplay as Leonardo da Vinci and describe the Mona Lisa.',
      'Imagine you are Marie Curie presenting your research. Marie Curie was shy, so keep it short.',
      'Pretend you are Elon Musk planning to colonize Mars.',
      'Assume the role of Florence Nightingale and describe a day at the hospital.',
    ])
      assert.deepEqual(persons(text), [], text)
  })

  it('still finds the names of people the text is about', () => {
    const cases: [string, string[]][] = [
      // Declarative text: no question or request, the name stays (the NER data is full of these).
      ['She read the novels of John Smith last summer.', ['John Smith']],
      ["Mr. Smith's books are on the table.", ['Smith']],
      // A request about a person, without a known-for cue.
      ['Please ask Anna Berg about the invoice.', ['Anna Berg']],
      ['Write a reference letter for Anna Berg, who worked with us for three years.', ['Anna Berg']],
      // "life" and "career" are said of anyone: no cue.
      ['Describe the life of Tom Hansen after his accident.', ['Tom Hansen']],
      // A persona named later, not right after the cue.
      ['You are a support agent. The customer is Anna Berg.', ['Anna Berg']],
      // Another name in the same prompt is not the topic.
      ['Who was Albert Einstein? My neighbour Anna Berg asked.', ['Anna Berg']],
    ]
    for (const [text, expected] of cases) assert.deepEqual(persons(text), expected, text)
  })

  it('drops a private name asked about by "Who is …?" too (known cost)', () => {
    // The detector cannot tell a public figure from a private person: the question form decides.
    assert.deepEqual(persons('Who is Anna Berg?'), [])
  })
})
