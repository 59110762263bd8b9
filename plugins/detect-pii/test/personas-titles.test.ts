import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { type AnalyzerOptions, analyzeChunk } from '../src/analyze-text.js'
import { defaultAnalyzerOptions } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
const found = (text: string) =>
  analyzeChunk(text, options)
    .filter((d) => d.type === 'PERSON' || d.type === 'ORGANIZATION')
    .map((d) => `${d.type}:${text.slice(d.start, d.end)}`)

describe('famous personas and topics, titles and words that are no names (0.6.5)', () => {
  it('leaves personas described before the name, "As X, …" requests and famous names alone', () => {
    for (const text of [
      'You are the famed poet, William Shakespeare.',
      'Role play as Charles Darwin and explain evolution.',
      'As Julius Caesar, how would you handle the senate?',
      'As the renowned explorer Amelia Earhart, how would you empower others?',
      'You are roleplaying as Neil Armstrong after the mission.',
      'Assume you are astronaut Neil Armstrong, reflecting on the moon landing.',
      "Imagine you're Albus Dumbledore addressing new students.",
      'Who played the iconic character Tony Montana in the movie Scarface?',
      'What motivated the assassination of Archduke Franz Ferdinand?',
      'It is a famous John Wyndham novel.',
      'Imagine you are a historical figure like Leonardo da Vinci.',
      "As Shakespeare's Juliet, provide advice to a young girl.",
      'Imagine being a historical figure, George Washington, and describe the state of the union.',
      'Take on the role of Mary Shelley, the author of Frankenstein, and discuss the character of Dr. Frankenstein.',
      'Fix the code: std::string name = "John Doe";',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('keeps names the same words do not make personas or topics', () => {
    for (const [text, name] of [
      ['You are the assistant of Elon Musk.', 'Elon Musk'],
      ['You are helping Mark Jensen with his taxes.', 'Mark Jensen'],
      ['As Anna Berg mentioned, the report is due.', 'Anna Berg'],
      ['You are a support agent for Anna Berg.', 'Anna Berg'],
      ['The roleplay Anna Berg organised was fun.', 'Anna Berg'],
      ['As Anna Berg, I approve the budget.', 'Anna Berg'],
      ['Mark Jensen is the author of the report.', 'Mark Jensen'],
    ])
      assert.ok(found(text).includes(`PERSON:${name}`), `${text}: ${found(text)}`)
  })

  it('drops titles after a capitalised "The", interjections, demonyms, joined events and Turkish compounds', () => {
    for (const text of [
      'You are a pirate captain aboard the legendary ship, The Black Pearl. Explain the plan.',
      "Let's assume we have a writing exercise on The Great Gatsby and its themes.",
      'Roleplay as an upset Martian who discovered a rover.',
      'Imagine you are a Martian linguist who found a manuscript.',
      'Ha-ha, that is funny.',
      'Which players won both the WTA Championships and Australian Open?',
      "Norman Kalesi'nin adı neydi?",
      "Sakson Bahçesi Lehçe'de nedir?",
      'Anarşinin Maskesi şiirini kim yazmıştır?',
      'Кто выиграл Чемпионат Экстракласса в 2000 году?',
    ])
      assert.deepEqual(found(text), [], text)
  })

  it('keeps people in the same shapes', () => {
    for (const [text, name] of [
      ['I met an Anna Berg at the party.', 'Anna Berg'],
      ['Hej, jeg hedder The Fabulous Russella, og du kan skrive til mig.', 'The Fabulous Russella'],
      ['Alex said Ha-ha and left.', 'Alex'],
      ['Hafez a Džahija prišli neskoro.', 'Džahija'],
      ['У Дороти Смит есть собака.', 'Дороти Смит'],
    ])
      assert.ok(found(text).includes(`PERSON:${name}`), `${text}: ${found(text)}`)
  })
})
