import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AnalyzerOptions, analyzeChunk, analyzeText, analyzeTextNow } from '../src/analyze-text.js'
import { codeUnits } from '../src/code-units.js'
import { PII_TYPES } from '../src/pii-types.js'
import { DEFAULT_PHONE_REGIONS } from '../src/settings.js'
import { readTextFacts } from '../src/text-facts.js'
import { densePiiText } from './helpers.js'

const structured: AnalyzerOptions = {
  types: new Set(PII_TYPES),
  minScore: 0.5,
  allowList: new Set(),
  allowPatterns: [],
  locations: 'all',
  organizations: 'all',
  phoneRegions: DEFAULT_PHONE_REGIONS,
  gazetteer: undefined,
}

const found = (text: string) =>
  analyzeChunk(text, structured).map((d) => `${d.type}:${text.slice(d.start, d.end)}`)

describe('text facts and the detector guards', () => {
  it('reads digits, runs, separators and casing in one pass over the code units', () => {
    assert.deepEqual(readTextFacts(codeUnits('Call 555-0100 or mail a@b.example: ok')), {
      digits: 7,
      digitRun: 4,
      hasAt: true,
      hasDot: true,
      colons: 1,
      caseMode: 'normal',
    })
    assert.equal(readTextFacts(codeUnits('all lower case words here, nothing else')).caseMode, 'lower')
    assert.equal(readTextFacts(codeUnits('ALL UPPER CASE WORDS HERE, NOTHING ELSE')).caseMode, 'upper')
    const units = codeUnits('Grüße 🙂')
    assert.equal(units.length, 'Grüße 🙂'.length)
    assert.equal(units[2], 'ü'.charCodeAt(0))
  })

  it('still finds every structured type with the fewest digits its pattern allows', () => {
    assert.deepEqual(found('mail a@b.co'), ['EMAIL_ADDRESS:a@b.co'])
    assert.deepEqual(found('card 4111111111111111'), ['CREDIT_CARD:4111111111111111'])
    assert.deepEqual(found('SSN 536323065'), ['US_SSN:536323065'])
    assert.deepEqual(found('from 1.2.3.4 today'), ['IP_ADDRESS:1.2.3.4'])
    // No digit at all: the colon count alone must let the IPv6 detector run.
    assert.deepEqual(found('host dead:beef::cafe here'), ['IP_ADDRESS:dead:beef::cafe'])
    assert.deepEqual(found('phone 555 0100'), ['PHONE_NUMBER:555 0100'])
    assert.deepEqual(found('born 1/2/90'), ['DATE_OF_BIRTH:1/2/90'])
    assert.deepEqual(found('IBAN NO9386011117947'), ['IBAN_CODE:NO9386011117947'])
    assert.deepEqual(found('at 1 Main Street'), ['STREET_ADDRESS:1 Main Street'])
  })

  it('cuts long texts at the same places in one go as with turns of the event loop', async () => {
    const text = densePiiText(40_000)
    assert.deepEqual(analyzeTextNow(text, structured), await analyzeText(text, structured))
  })
})
