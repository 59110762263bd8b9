import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AhoCorasick } from '../src/aho-corasick.js'
import { FindingTypes } from '../src/detection.js'
import { detectorWith, found } from './settings-helper.js'

const TERMS = {
  terms: [
    { term: 'Project Falcon', aliases: ['Falcon initiative'], level: 'restricted', category: 'code_name' },
    { term: 'Acme Corp', aliases: ['Acme Corporation'], level: 'confidential', category: 'customer' },
    { term: 'Société Lumière', category: 'partner' },
    { term: '北极星计划', level: 'restricted', category: 'code_name' },
    { term: 'Blue Harbor', level: 'internal', category: 'product' },
  ],
  markings: false,
  financial: false,
}

describe('Aho–Corasick automaton', () => {
  it('reports every occurrence, overlapping ones and ones found through fail links', () => {
    const automaton = new AhoCorasick(['he', 'she', 'his', 'hers'])
    const hits: [number, number, number][] = []
    automaton.scan('ushers and his', (id, start, end) => hits.push([id, start, end]))
    assert.deepEqual(hits, [
      [1, 1, 4],
      [0, 2, 4],
      [3, 2, 6],
      [2, 11, 14],
    ])
  })
})

describe('declared terms', () => {
  const detector = detectorWith(TERMS)
  const terms = (text: string) => found(text, detector.analyze(text))

  it('finds a term case-insensitively, whole words only, with its level and category', () => {
    const text = 'Status of PROJECT FALCON for the board.'
    const [hit] = detector.analyze(text)
    assert.equal(hit.type, FindingTypes.TERM)
    assert.equal(text.slice(hit.start, hit.end), 'PROJECT FALCON')
    assert.equal(hit.level, 'restricted')
    assert.deepEqual(hit.detail, { category: 'code_name', term: 0 })
    assert.equal(hit.maskAs, 'CODE_NAME')
  })

  it('finds aliases and reports them as the term they belong to', () => {
    const text = 'Milestones of the falcon initiative and the Acme Corporation renewal.'
    const hits = detector.analyze(text)
    assert.deepEqual(found(text, hits), ['business_term:falcon initiative', 'business_term:Acme Corporation'])
    assert.deepEqual(
      hits.map((h) => h.maskKey),
      ['term:0', 'term:1'],
    )
  })

  it('does not flag look-alikes: other words, plurals, longer words, partial names', () => {
    for (const text of [
      'The peregrine falcon is fast.',
      'Projects Falcon and Eagle',
      'Acme Corporate Training Ltd',
      'Acme is a cartoon company.',
      'Blue harbors on Greek islands',
      'We sailed to BlueHarbor.',
      'Société Générale results',
      '北极星是最亮的星之一',
    ]) {
      assert.deepEqual(terms(text), [], text)
    }
  })

  it('treats hyphens, underscores and runs of whitespace as one space', () => {
    assert.deepEqual(terms('project-falcon, PROJECT_FALCON and Project\n  Falcon'), [
      'business_term:project-falcon',
      'business_term:PROJECT_FALCON',
      'business_term:Project\n  Falcon',
    ])
  })

  it('ignores accents and compatibility forms, and maps offsets back exactly', () => {
    const decomposed = 'Societe\u0301 Lumie\u0300re'
    assert.deepEqual(terms('Meeting with societe lumiere today'), ['business_term:societe lumiere'])
    assert.deepEqual(terms(`Met ${decomposed}.`), [`business_term:${decomposed}`])
    assert.deepEqual(terms('Call with ＡＣＭＥ ＣＯＲＰ'), ['business_term:ＡＣＭＥ ＣＯＲＰ'])
    assert.deepEqual(terms('SOCIÉTÉ LUMIÈRE signed'), ['business_term:SOCIÉTÉ LUMIÈRE'])
  })

  it('finds CJK terms inside running text, where words are not separated by spaces', () => {
    const text = '请汇报北极星计划的预算。'
    const [hit] = detector.analyze(text)
    assert.equal(text.slice(hit.start, hit.end), '北极星计划')
    assert.equal(hit.level, 'restricted')
  })

  it('keeps offsets right after astral characters (emoji) before the term', () => {
    const text = '🚀🚀 Acme Corp ships'
    assert.deepEqual(terms(text), ['business_term:Acme Corp'])
  })

  it('prefers the longest of overlapping terms and the highest level of duplicates', () => {
    const detector = detectorWith({
      terms: [
        { term: 'Acme', level: 'internal', category: 'customer' },
        { term: 'Acme Corp', level: 'confidential', category: 'customer' },
        { term: 'ACME', level: 'restricted', category: 'watchlist' },
      ],
      markings: false,
      financial: false,
    })
    const text = 'Acme Corp and Acme'
    const hits = detector.analyze(text)
    assert.deepEqual(found(text, hits), ['business_term:Acme Corp', 'business_term:Acme'])
    assert.equal(hits[0].level, 'confidential')
    assert.equal(hits[1].level, 'restricted')
    assert.equal(hits[1].maskAs, 'WATCHLIST')
  })

  // Speed is measured by benchmarks, not asserted here: a time bound failed a CI run on a
  // loaded machine (the build took 3.4 s against 1.6 s unloaded). The times are printed.
  it('finds the one of 5,000 terms in a text, case-folded, and reports its index', (t) => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      term: `Codename ${i.toString(36)} ${['Alpha', 'Bravo', 'Delta', 'Ökonom', '星'][i % 5]}`,
      level: 'confidential',
      category: 'code_name',
    }))
    const built = performance.now()
    const big = detectorWith({ terms: many, markings: false, financial: false })
    const buildMs = performance.now() - built
    const wanted = many[4401].term.toLowerCase()
    const text = `${'Routine notes about the weekly sync and nothing else. '.repeat(18)} ${wanted}, CODENAME ZZ9 ALPHA.`
    const started = performance.now()
    const hits = big.analyze(text)
    const scanMs = performance.now() - started
    assert.deepEqual(found(text, hits), [`business_term:${wanted}`])
    assert.equal(hits[0].detail.term, 4401)
    t.diagnostic(`5,000 terms: build ${buildMs.toFixed(0)} ms, one 1 KB scan ${scanMs.toFixed(2)} ms`)
  })

  it('rejects a term with nothing to match', () => {
    assert.throws(
      () => detectorWith({ terms: [{ term: ' - _ ' }] }),
      (error: { code: string; status: number }) =>
        error.code === 'GOV_ERR_STEP_SETTINGS_INVALID' && error.status === 400,
    )
  })
})
