import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { type AnalyzerOptions, analyzeChunk } from '../src/analyze-text.js'
import { defaultAnalyzerOptions, makeStep } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
/** Each finding as `TYPE:value`, with `!` when it scores ≥ 0.8 (refuses under the presets' `block_min_score`). */
const found = (text: string) =>
  analyzeChunk(text, options).map(
    (d) => `${d.type}:${text.slice(d.start, d.end)}${d.score >= 0.8 ? '!' : ''}`,
  )

// Every wrong finding below scored ≥ 0.8 in 0.6.1, so `strict` refused the prompt; 0.6.2 masks it instead.
const NO_PERSON = [
  // A word the tagger reads as a name in a question, no known name, title or cue: a place, a title.
  ['Каково население Варшавы сегодня?', ['PERSON:Варшавы']],
  // (Since 0.6.5 "Anarşinin Maskesi şiirini kim yazmıştır?", a Turkish compound in -sI in Turkish text, is no
  // finding at all: test/personas-titles.test.ts.)
  // Vietnamese: every syllable is a first name to the gazetteer. (Since 0.6.4 a lone syllable before a lower-case
  // one, "Biệt danh của Đồng bằng là gì?", is no finding at all: test/titles-places-languages.test.ts.)
  ['Tuyên bố nào bãi bỏ Đạo Tin lành tại Pháp?', ['PERSON:Đạo Tin']],
  // Turkish "Kim" (who) and Swahili "Madaktari" (doctors) opening a sentence.
  ['Kim bu şiiri yazmıştır ve ne zaman?', ['PERSON:Kim']],
  // (A word problem since 0.6.5: no finding at all in "… $150 kwa saa. Wagonjwa ni wangapi?".)
  ['Madaktari hutoza hospitali pesa nyingi kwa saa.', ['PERSON:Madaktari']],
  // Turkish "Kara" (black) opening a question, and a place with a Turkish suffix.
  ['Kara veba hangi yıl Avrupa’yı vurmuştur?', ['PERSON:Kara', 'PERSON:Avrupa’yı']],
  // An acronym that is also a first name ("ABD", Turkish for USA).
  ['Üniversitenin bulunduğu büyük ABD şehri hangisidir ve neden ünlüdür?', ['PERSON:ABD']],
  // A documented parameter written like a handle (inside a Python function's docstring it is no finding at all
  // since 0.6.8: test/lists-records-teams.test.ts).
  ['/**\n * Variables:\n * @count : integer\n *     the number eaten.\n */', ['PERSON:count']],
  // English text: a lone word that is no known name, anywhere in the sentence.
  [
    'You are an AI sent back in time to watch the building of the Great Pyramid of Giza. Describe the scene.',
    ['PERSON:Giza'],
  ],
  // A thing named by words that are no names, ending in a dictionary word.
  ['Explain how Higgs Boson decays were first measured.', ['PERSON:Higgs Boson']],
  // A place tied to the writer by a cue alone ("You are the Norse god Thor" is no place since 0.6.6).
  ['I am planning to visit London next spring and want a cheap hotel.', ['LOCATION:London']],
] as const

describe('refusing needs evidence of a person (0.6.2)', () => {
  it('masks, but does not refuse, names without evidence in doubtful places', () => {
    for (const [text, expected] of NO_PERSON) assert.deepEqual(found(text), expected, text)
  })

  it('keeps refusing names with evidence next to them: known names, titles, cues, initials, regnal numbers', () => {
    // A known first name in a question.
    assert.deepEqual(found('Who sent the invoice to Anna Berg yesterday?'), ['PERSON:Anna Berg!'])
    // A title before an unknown surname opening a sentence.
    assert.deepEqual(found('Mr. Kowalczyk called again. Did he pay?'), ['PERSON:Kowalczyk!'])
    // A Vietnamese surname the gazetteer knows in a name of two words.
    assert.deepEqual(found('Nguyễn Văn Nam sống ở đâu?'), ['PERSON:Nguyễn Văn!'])
    // A person introducing themselves, in a question.
    assert.deepEqual(found('Hallo, ich bin Palle Kreiberg und habe eine Frage zu meiner Bestellung?'), [
      'PERSON:Palle Kreiberg!',
    ])
    // A regnal number in the name, in a question.
    assert.deepEqual(found('Where does Thutmose III rank among my favourite pharaohs?'), [
      'PERSON:Thutmose III!',
    ])
    // Declarative text: an unknown full name is not doubtful.
    assert.deepEqual(found('Palle Kreiberg var lærer, men i sin fritid arbejdede han.'), [
      'PERSON:Palle Kreiberg!',
    ])
    // English text: an unknown surname after a title; a known name anywhere.
    assert.deepEqual(found('Please send the signed contract to Mr. Abakumov today and tell him the price.'), [
      'PERSON:Abakumov!',
    ])
    assert.deepEqual(found('The invoice was sent to Anna Berg and she has paid it.'), ['PERSON:Anna Berg!'])
    // A social handle in prose still refuses.
    assert.deepEqual(found('Ask @jsmith about the invoice.'), ['PERSON:jsmith!'])
    // A place beside a name still refuses.
    assert.deepEqual(found('Anna Berg from Oslo asked about her order.'), [
      'PERSON:Anna Berg!',
      'LOCATION:Oslo!',
    ])
  })

  it('under strict settings the prompts without a person pass masked, and a name with evidence is refused', async () => {
    const { step } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
    })
    for (const [text] of NO_PERSON) {
      const exchange = makeExchange([{ source: 'user', text }])
      assert.equal((await step.onRequest(makeRequestContext(exchange))).kind, 'continue', text)
      assert.notEqual(exchange.messages[0].parts[0].text, text, `masked: ${text}`)
    }
    const refused = await step.onRequest(
      makeRequestContext(makeExchange([{ source: 'user', text: 'Mr. Kowalczyk called again. Did he pay?' }])),
    )
    assert.equal(refused.kind, 'block')
  })
})
