import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { AnalyzerOptions } from '../src/analyze-text.js'
import { defaultAnalyzerOptions, findingsOf, makeStep, strictVerdict } from './helpers.js'

let options: AnalyzerOptions
before(async () => {
  options = await defaultAnalyzerOptions()
})
const found = (text: string) => findingsOf(text, options)

// Shapes of a finding that are seldom a name (0.6.10): each refused under strict in 0.6.9, masked since.
const NO_PERSON = [
  // A word of another language, opening lower-case, in a text that capitalises.
  ['¿Quién decide cómo se permite el uso de la tierra o de la propiedad?', ['PERSON:tierra o']],
  // One dictionary word before a number: a mission, a model.
  ['Kalan orijinal Apollo 11 iniş verilerini kim derledi?', ['PERSON:Apollo']],
  ['Which rocket launched Apollo 11 and who flew it?', ['PERSON:Apollo']],
  // A state read as a person, and the place it "locates" (tied only to that doubtful name).
  ['How far away is Missouri from New York by car?', ['PERSON:Missouri', 'LOCATION:New York']],
  // One word after "the".
  [
    'Could you outline the dietary plan that allows the mythical creature, the Griffin, to stay strong?',
    ['PERSON:Griffin'],
  ],
  // In English text, one word after a capitalised everyday word: the end of a name of a thing.
  [
    'You are a bartender, how do you recommend that your patrons enjoy your special Mermaid Margarita?',
    ['PERSON:Margarita'],
  ],
] as const

// Real private names in the same shapes, with evidence: each still refuses under strict.
const PERSON = [
  [
    'My colleague Anna Berg from Oslo asked about the tierra o la casa.',
    ['PERSON:Anna Berg!', 'LOCATION:Oslo!'],
  ],
  // A first name that is also a state, after a cue: the place she lives in keeps refusing too.
  ['My sister Victoria lives in Leeds.', ['PERSON:Victoria!', 'LOCATION:Leeds!']],
  ['Dear Victoria, the invoice is attached.', ['PERSON:Victoria!']],
  ['Mr. Apollo 2 called again about the invoice.', ['PERSON:Apollo!']],
  ['Please ask Dr. Griffin about the results.', ['PERSON:Griffin!']],
  ['Send Anna Berg 3 copies of the contract.', ['PERSON:Anna Berg!']],
  ['Please Call Anna about the invoice.', ['PERSON:Anna!']],
  ['We had a Team Meeting With Anna yesterday.', ['PERSON:Anna!']],
  [
    'Write to Anna Berg at anna.berg@example.com about the Griffin.',
    ['PERSON:Anna Berg!', 'EMAIL_ADDRESS:anna.berg@example.com!', 'PERSON:Griffin'],
  ],
] as const

describe('names of a doubtful shape are masked, not refused (0.6.10)', () => {
  it('caps a lower-case opening, a word before a number, a place read as a person, a word after "the" or a capitalised everyday word', () => {
    for (const [text, expected] of NO_PERSON) assert.deepEqual(found(text), expected, text)
  })

  it('keeps the findings of names with a title, a cue or a known surname in the same shapes', () => {
    for (const [text, expected] of PERSON) assert.deepEqual(found(text), expected, text)
  })

  it('under strict the doubtful prompts pass masked and the private names are refused; standard masks them', async () => {
    const { step: strict } = await makeStep({
      action: 'block',
      block_min_score: 0.8,
      mask_only_types: ['ORGANIZATION'],
    })
    const { step: standard } = await makeStep({ action: 'mask' })
    for (const [text] of NO_PERSON) {
      const verdict = await strictVerdict(strict, text)
      assert.equal(verdict.kind, 'continue', text)
      assert.notEqual(verdict.text, text, `masked: ${text}`)
    }
    for (const [text] of PERSON) {
      assert.equal((await strictVerdict(strict, text)).kind, 'block', text)
      const masked = await strictVerdict(standard, text)
      assert.equal(masked.kind, 'continue', text)
      assert.notEqual(masked.text, text, `masked: ${text}`)
    }
  })
})
