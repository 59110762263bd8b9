import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError, type Verdict } from '@gov/core'
import {
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeResponseContext,
  makeServices,
} from '@gov/core/testing'
import {
  CONSTRAIN_OUTPUT_ERRORS,
  ConstrainOutputStep,
  DenyPatterns,
  MAX_REQUEST_SCHEMA_CHARS,
  resolveSettings,
} from '../src/index.js'

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
}

function makeStep(overrides: Parameters<typeof resolveSettings>[0] = {}) {
  const services = makeServices('constrain_output')
  return { step: new ConstrainOutputStep(resolveSettings(overrides), services), services }
}

/** Run both phases on one answer text; `body` is extra request body (e.g. response_format). */
function govern(step: ConstrainOutputStep, text: string, body: Record<string, unknown> = {}) {
  const exchange = makeExchange([{ source: 'user', text: 'q' }], { body })
  const state = new Map<string, unknown>()
  const request = step.onRequest(makeRequestContext(exchange, { state }))
  if (request.kind !== 'continue') return { verdict: request as Verdict, findings: [] }
  const ctx = makeResponseContext(exchange, makeAnswer(text), { state })
  return { verdict: step.onBufferedResponse(ctx), findings: ctx.findings }
}

const code = (v: Verdict) => (v.kind === 'block' || v.kind === 'retry' ? v.code : undefined)
const reason = (v: Verdict) => (v.kind === 'block' || v.kind === 'retry' ? v.reason : '')

describe('constrain_output', () => {
  it('passes every answer with the default settings', () => {
    const { step } = makeStep()
    assert.equal(govern(step, 'anything at all').verdict.kind, 'continue')
  })

  it('blocks an answer over max_chars with 403 output_invalid naming the rule', () => {
    const { step, services } = makeStep({ max_chars: 10 })
    assert.equal(govern(step, '0123456789').verdict.kind, 'continue')
    const { verdict, findings } = govern(step, '0123456789X')
    assert.equal(verdict.kind, 'block')
    assert.equal(code(verdict), 'output_invalid')
    assert.equal(verdict.kind === 'block' && (verdict.status ?? 403), 403)
    assert.match(reason(verdict), /max_chars/)
    assert.deepEqual(findings[0]?.detail, { rule: 'max_chars', action: 'block' })
    assert.equal(services.counts.get('gov_output_violations_total{"rule":"max_chars","action":"block"}'), 1)
  })

  it('holds the answer to json_schema: must parse and validate; the reason never quotes the answer', () => {
    const { step } = makeStep({ json_schema: PERSON })
    assert.equal(govern(step, '{"name":"Ann","age":3}').verdict.kind, 'continue')
    const wrong = govern(step, '{"name":"Ann","age":-3,"ssn":"078-05-1120"}').verdict
    assert.equal(code(wrong), 'output_invalid')
    assert.match(reason(wrong), /json_schema/)
    assert.ok(!reason(wrong).includes('078-05-1120'))
    const prose = govern(step, 'Sure! Here it is: {"name":"Ann"}').verdict
    assert.match(reason(prose), /not valid JSON/)
  })

  it("honours the request's own response_format json_schema (OpenAI) and output_format (Anthropic)", () => {
    const { step } = makeStep()
    const openai = {
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON } },
    }
    assert.equal(govern(step, '{"name":"Ann","age":3}', openai).verdict.kind, 'continue')
    assert.match(reason(govern(step, '{"name":"Ann"}', openai).verdict), /response_format/)
    const anthropic = { output_format: { type: 'json_schema', schema: PERSON } }
    assert.equal(code(govern(step, 'not json', anthropic).verdict), 'output_invalid')
    assert.equal(govern(step, 'plain text', { response_format: { type: 'text' } }).verdict.kind, 'continue')
    const jsonMode = { response_format: { type: 'json_object' } }
    assert.equal(govern(step, '{"any":"object"}', jsonMode).verdict.kind, 'continue')
    assert.equal(
      code(govern(step, '[1, 2]', jsonMode).verdict),
      'output_invalid',
      'JSON mode promises an object',
    )
    const noSchema = { response_format: { type: 'json_schema', json_schema: { name: 'free' } } }
    assert.equal(govern(step, 'not json', noSchema).verdict.kind, 'continue', 'no schema, nothing to check')
    const off = makeStep({ honour_response_format: false }).step
    assert.equal(govern(off, 'not json', openai).verdict.kind, 'continue')
  })

  it('refuses with 400 a request schema it cannot enforce (does not compile, unsafe pattern, too large)', () => {
    const { step } = makeStep()
    const bad = (schema: unknown) =>
      govern(step, '{}', { response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } })
        .verdict
    for (const schema of [
      { type: 'no-such-type' },
      { type: 'string', pattern: '(a+)+\\1' },
      { type: 'object', description: 'x'.repeat(MAX_REQUEST_SCHEMA_CHARS) },
    ]) {
      const verdict = bad(schema)
      assert.equal(code(verdict), 'response_format_invalid')
      assert.equal(verdict.kind === 'block' && verdict.status, 400)
    }
  })

  it('does not hold a tool-calling turn without text to the JSON schema', () => {
    const { step } = makeStep({ json_schema: PERSON })
    const exchange = makeExchange([{ source: 'user', text: 'q' }])
    const answer = makeAnswer(undefined, [{ id: 'c', name: 'lookup', arguments: '{}' }])
    assert.equal(step.onBufferedResponse(makeResponseContext(exchange, answer)).kind, 'continue')
  })

  it('blocks an answer matching a deny pattern, naming the pattern by index', () => {
    const { step } = makeStep({ deny_patterns: ['internal-only', '/project\\s+falcon/i'] })
    assert.equal(govern(step, 'A public answer').verdict.kind, 'continue')
    const verdict = govern(step, 'The PROJECT  Falcon launch is…').verdict
    assert.equal(code(verdict), 'output_invalid')
    assert.match(reason(verdict), /deny_patterns\[1\]/)
    assert.ok(!reason(verdict).includes('Falcon'))
  })

  it('asks the model again with feedback when on_violation is retry', () => {
    const { step, services } = makeStep({ json_schema: PERSON, on_violation: 'retry' })
    const verdict = govern(step, 'no json here').verdict
    assert.equal(verdict.kind, 'retry')
    assert.equal(code(verdict), 'output_invalid')
    assert.ok(verdict.kind === 'retry' && verdict.feedback.includes('JSON'))
    assert.ok(verdict.kind === 'retry' && !verdict.feedback.includes('no json here'))
    assert.equal(services.counts.get('gov_output_violations_total{"rule":"json_schema","action":"retry"}'), 1)
  })

  it('refuses at load a pattern RE2 cannot run or a bad flag, and a bad schema', () => {
    const refused = (overrides: Parameters<typeof resolveSettings>[0], expected: string) =>
      assert.throws(
        () => makeStep(overrides),
        (err: unknown) => err instanceof GovError && err.code === expected && err.status === 400,
      )
    refused({ deny_patterns: ['(unclosed'] }, CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID)
    refused({ deny_patterns: ['(?=lookahead)x'] }, CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID)
    refused({ deny_patterns: ['/x/q'] }, CONSTRAIN_OUTPUT_ERRORS.PATTERN_INVALID)
    assert.ok(makeStep({ deny_patterns: ['(a+)+$', '/([a-z]*)*@/i'] }), 'nested quantifiers are fine on RE2')
    refused({ json_schema: { type: 42 } }, CONSTRAIN_OUTPUT_ERRORS.SCHEMA_INVALID)
    // A backreference is not RE2, and with nested quantifiers the native engine may not run it either.
    refused(
      { json_schema: { properties: { a: { pattern: '(x+)+\\1' } } } },
      CONSTRAIN_OUTPUT_ERRORS.SCHEMA_INVALID,
    )
    assert.ok(
      makeStep({ json_schema: { properties: { a: { pattern: '(?=a)a' } } } }),
      'plain lookahead runs natively',
    )
  })

  it('matches in time linear in the answer: a pattern that backtracks badly natively is harmless', () => {
    // Natively `(a|aa)+$` / `\\s*\\s*x` take exponential / cubic time on these inputs; RE2 does not backtrack.
    const patterns = new DenyPatterns(['(a|aa)+b', '\\s*\\s*x'])
    assert.equal(patterns.firstMatch('a'.repeat(5_000)), -1)
    assert.equal(patterns.firstMatch(' '.repeat(200_000)), -1)
    assert.equal(patterns.firstMatch(`${' '.repeat(10_000)}x`), 1)
  })
})
