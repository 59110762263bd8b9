import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { Gazetteer } from '../src/entities/gazetteer.js'
import { tagEntities } from '../src/entities/tag-entities.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'

let gazetteer: Gazetteer
before(async () => {
  gazetteer = await sharedGazetteer()
})

/** Entities at or above the default min_score, as `type:value`. */
function tag(text: string): string[] {
  return tagEntities(text, gazetteer)
    .filter((d) => d.score >= 0.5)
    .sort((a, b) => a.start - b.start)
    .map((d) => `${d.type}:${text.slice(d.start, d.end)}`)
}

describe('named entities', () => {
  it('finds full names, names with particles and titles', () => {
    assert.deepEqual(tag('I want to add Randy Shaw as a beneficiary'), ['PERSON:Randy Shaw'])
    assert.deepEqual(tag("It's under my partner's name Donald van der Voet"), ['PERSON:Donald van der Voet'])
    assert.deepEqual(tag('Hello, this is Mr. Dresdner. Who are you?'), ['PERSON:Dresdner'])
  })

  it('finds single first names and names in lower-case text', () => {
    assert.deepEqual(tag('Clotilde, can I please speak to your boss?'), ['PERSON:Clotilde'])
    assert.deepEqual(tag('please forward this to jared paavolainen before noon today'), [
      'PERSON:jared paavolainen',
    ])
  })

  it('finds names in other scripts and with diacritics', () => {
    assert.deepEqual(tag('A song by Katherine Gyôry'), ['PERSON:Katherine Gyôry'])
    assert.ok(tag('Звоните Александр Иванов завтра').some((v) => v.startsWith('PERSON:Александр')))
  })

  it('finds countries and cities, and tells a person named like a place', () => {
    assert.deepEqual(tag('She moved here from Spain'), ['LOCATION:Spain'])
    assert.deepEqual(tag('We flew to South Korea and then on to Japan.'), [
      'LOCATION:South Korea',
      'LOCATION:Japan',
    ])
    assert.deepEqual(tag('Grüße an Jürgen Müller aus Köln'), ['PERSON:Jürgen Müller', 'LOCATION:Köln'])
    assert.deepEqual(tag('Jordan Smith called'), ['PERSON:Jordan Smith'])
  })

  it('finds organisations by suffix, connector and cue', () => {
    assert.deepEqual(tag('Smith Ltd. is the brainchild of our founders'), ['ORGANIZATION:Smith Ltd.'])
    assert.deepEqual(tag('He now works for H. J. Wilson & Company'), ['ORGANIZATION:H. J. Wilson & Company'])
    assert.deepEqual(tag('Schreib an Jürgen Müller von der Deutschen Bank.'), [
      'PERSON:Jürgen Müller',
      'ORGANIZATION:Deutschen Bank',
    ])
  })

  it('does not flag capitalised everyday words, sentence starts or acronyms', () => {
    for (const text of [
      'Capitalized words like Wisdom and Discipline are often mistaken with names.',
      'Will my account stay active?',
      'CAN I SPEAK TO A REAL PERSON?!?!',
      'May I pay by Monday? The API returns JSON over HTTP.',
      'My religion does not allow speaking to bots, they are evil and hacked by the Devil',
      'Please Review The Attached Document Before Friday',
    ])
      assert.deepEqual(tag(text), [], text)
  })
})
