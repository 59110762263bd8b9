import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FindingTypes } from '../src/detection.js'
import { detectorWith } from './settings-helper.js'

const detector = detectorWith({ financial: false })

function markings(text: string) {
  return detector.analyze(text).filter((d) => d.type === FindingTypes.MARKING)
}

function marked(text: string): string[] {
  return markings(text).map((d) => `${text.slice(d.start, d.end)}/${d.level}`)
}

describe('confidentiality markings', () => {
  it('finds header and footer markings with their levels', () => {
    assert.deepEqual(marked('CONFIDENTIAL\n\nBoard update\nHeadcount plan attached.'), [
      'CONFIDENTIAL/confidential',
    ])
    assert.deepEqual(marked('STRICTLY CONFIDENTIAL\nDraft term sheet'), ['STRICTLY CONFIDENTIAL/restricted'])
    assert.deepEqual(marked('Roadmap\n- search migration\n---\nInternal only.'), ['Internal only/internal'])
    assert.deepEqual(marked('Classification: Restricted\nOwner: platform'), ['Restricted/restricted'])
    assert.deepEqual(marked('SECRET\nOperation notes follow.'), ['SECRET/restricted'])
    assert.deepEqual(marked('[INTERNAL] Incident postmortem'), ['INTERNAL/internal'])
  })

  it('finds marking statements and phrases in running text', () => {
    assert.deepEqual(marked('This memo is strictly confidential.'), ['strictly confidential/restricted'])
    assert.deepEqual(marked('Please keep this confidential until Friday.'), ['confidential/confidential'])
    assert.deepEqual(marked('This deck is for internal use only.'), ['for internal use only/internal'])
    assert.deepEqual(marked('The numbers below are under NDA.'), ['under NDA/confidential'])
    assert.deepEqual(marked('Attorney-Client Privileged\nRe: dispute'), [
      'Attorney-Client Privileged/restricted',
    ])
  })

  it('finds markings in other languages and scripts', () => {
    assert.deepEqual(marked('Vertraulich\nProtokoll der Sitzung'), ['Vertraulich/confidential'])
    assert.deepEqual(marked('Streng vertraulich: Entwurf'), ['Streng vertraulich/restricted'])
    assert.deepEqual(marked('STRICTEMENT CONFIDENTIEL\nCompte rendu'), [
      'STRICTEMENT CONFIDENTIEL/restricted',
    ])
    assert.deepEqual(marked('社外秘\n事業計画書'), ['社外秘/confidential'])
    assert.deepEqual(marked('대외비 - 출시 일정'), ['대외비/confidential'])
  })

  it('does not flag the same words asked about, quoted or used in ordinary sense', () => {
    for (const text of [
      'Is this confidential? Can I share the notes?',
      "What does 'internal use only' mean on a document?",
      'How do I add a CONFIDENTIAL watermark in Word?',
      'The secret to good bread is time.',
      'The SECRET to good bread is time.',
      'Access to this area is restricted to staff.',
      'Our confidentiality policy requires an NDA.',
      'Can you draft an NDA for a freelancer?',
      "Please translate 'streng vertraulich' into English.",
      'Restricted Stock Units vest over four years.',
      'Internal server error (500)',
      'const SECRET_KEY_ENV = "APP_SECRET"',
      'Please do not share much interest in other games.',
    ]) {
      assert.deepEqual(marked(text), [], text)
    }
  })

  it('scores a stamped marking above the same word in a sentence, and a question lowest', () => {
    const stamped = markings('CONFIDENTIAL\nQ3 plan')[0].score
    const detectorAll = detectorWith({ financial: false, marking_min_score: 0 })
    const score = (text: string) =>
      detectorAll.analyze(text).find((d) => d.type === FindingTypes.MARKING)?.score ?? Number.NaN
    const inline = score('We discussed confidential topics today.')
    const question = score('Is this confidential?')
    assert.ok(stamped > inline, `${stamped} > ${inline}`)
    assert.ok(inline > question, `${inline} > ${question}`)
    assert.ok(stamped <= 1 && question >= 0)
  })

  it('honours marking_min_score, markings: false and extra markings', () => {
    const strict = detectorWith({ financial: false, marking_min_score: 0.95 })
    assert.equal(strict.analyze('This memo is strictly confidential.').length, 0)
    assert.equal(strict.analyze('STRICTLY CONFIDENTIAL\nDraft').length, 1)
    const off = detectorWith({ financial: false, markings: false })
    assert.equal(off.analyze('CONFIDENTIAL\nBoard deck').length, 0)
    const extra = detectorWith({
      financial: false,
      markings: false,
      extra_markings: [{ text: 'Initech Sensitive', level: 'restricted' }],
    })
    const text = 'INITECH SENSITIVE\nPlan'
    const [hit] = extra.analyze(text)
    assert.equal(text.slice(hit.start, hit.end), 'INITECH SENSITIVE')
    assert.equal(hit.level, 'restricted')
    assert.equal(hit.maskAs, undefined)
  })

  it('stays linear on a 200 KB single-line text full of markings', () => {
    const text = 'This file is confidential and internal. '.repeat(5000)
    const started = performance.now()
    const hits = markings(text)
    const ms = performance.now() - started
    assert.ok(hits.length >= 5000)
    // A bound for a quadratic or backtracking scan (minutes on 200 KB), not a speed goal:
    // linear runs took 0.2–1.6 s on a loaded CI machine.
    assert.ok(ms < 20_000, `took ${ms} ms`)
  })
})
