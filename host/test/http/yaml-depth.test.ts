import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { parse } from 'yaml'
import { checkYamlDepth, MAX_YAML_DEPTH } from '../../src/management/yaml-depth.js'
import { startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

/** A definition shaped like `gov assess` output: comments, quotes, apostrophes, brackets in text. */
const REAL = `# gov-pipeline.yaml — written by gov assess; don't edit the [answers] by hand
version: 1
assessment:
  data: [pii, business]   # what the agent sees
  tools: write
pipeline:
  pipeline_id: support-bot
  preset: strict
  description: "Assessed by gov assess: data pii/business, tools write [x] {y}"
  allow_flags:
    - mode
  overrides:
    # Users paste tickets: it's untrusted input, so the threshold is lower.
    detect_injection:
      threshold: 0.6
    detect_business:
      terms:
        - term: 'Project ''Falcon'' [internal]'
          aliases: [falcon, "the {bird}"]
      patterns:
        - name: contract
          regex: '^C-[0-9]{6}$'
  content:
    media: refuse
`

function assertTooDeep(text: string) {
  assert.throws(
    () => checkYamlDepth(text),
    (error: unknown) => {
      assert.ok(error instanceof GovError)
      assert.equal(error.code, 'invalid_yaml')
      assert.equal(error.status, 400)
      return true
    },
  )
}

describe('YAML depth bound', () => {
  it('accepts a real definition, brackets in quotes and comments included', () => {
    checkYamlDepth(REAL)
    assert.equal(parse(REAL).pipeline.overrides.detect_business.terms[0].term, "Project 'Falcon' [internal]")
  })

  it('accepts nesting at the limit and refuses one level more (flow collections)', () => {
    checkYamlDepth(`x: ${'['.repeat(MAX_YAML_DEPTH)}${']'.repeat(MAX_YAML_DEPTH)}`)
    assertTooDeep(`x: ${'['.repeat(MAX_YAML_DEPTH + 1)}`)
    assertTooDeep(`x: ${'{a: '.repeat(MAX_YAML_DEPTH + 1)}`)
  })

  it('refuses deep block nesting: compact sequences and deep indentation', () => {
    // 5,000 compact levels made V8's regexp compiler run out of memory inside the parser: the process died.
    assertTooDeep(`${'- '.repeat(5000)}x\n`)
    assertTooDeep(`${'- '.repeat(MAX_YAML_DEPTH + 1)}x\n`)
    assertTooDeep(`a:\n${' '.repeat(2 * MAX_YAML_DEPTH + 1)}b: 1\n`)
    checkYamlDepth(`${'- '.repeat(MAX_YAML_DEPTH)}x\n`)
  })

  it('does not count brackets inside quoted scalars spanning lines', () => {
    checkYamlDepth(`a: "${'['.repeat(200)}\n  ${'{'.repeat(200)}"\nb: '${'['.repeat(200)}'\n`)
  })
})

describe('deep YAML on the import endpoint', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('answers 400 invalid_yaml and the gateway stays up', async () => {
    for (const text of [`${'- '.repeat(5000)}x\n`, `x: ${'['.repeat(20_000)}`]) {
      const res = await t.admin('POST', '/pipelines/import', text, { contentType: 'application/yaml' })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'invalid_yaml')
    }
    const ok = await t.admin(
      'POST',
      '/pipelines/import',
      REAL.replace('preset: strict', 'preset: standard'),
      {
        contentType: 'application/yaml',
      },
    )
    assert.equal(ok.status, 201, ok.text)
    assert.deepEqual(ok.body.content, { media: 'refuse', unknown_blocks: 'refuse' })
  })
})
