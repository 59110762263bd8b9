import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { TOKENS } from '../../src/index.js'
import {
  chatBody,
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'
import type { CallTracer } from '../../src/tracing/call-tracer.js'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js'

const SERVER = 2
const CLIENT = 3
const INTERNAL = 1
const STATUS_ERROR = 2

const run = randomUUID().slice(0, 8)

describe('OpenTelemetry traces of governed calls (GOV_TRACING=otlp)', () => {
  let otlp: OtlpReceiver
  let t: TestGateway
  let tracer: CallTracer
  let key: string
  const agentId = `trace-agent-${run}`
  const pipelineId = `trace-${run}`
  const serviceName = `gov-trace-test-${run}`

  before(async () => {
    otlp = await startOtlpReceiver()
    t = await startTestGateway({
      env: { GOV_TRACING: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: serviceName },
    })
    await t.createPipeline(
      pipelineId,
      'standard',
      onlySteps('standard', { fx_pass: {}, fx_block: {}, fx_throw: {} }),
    )
    key = await t.createAgent(agentId, pipelineId)
    tracer = t.gateway.container.resolve<CallTracer>(TOKENS.Tracer)
  })
  after(async () => {
    await t?.close()
    await otlp?.close()
  })

  /** The server span of the call with this request id and every span under it, after an export. */
  async function spansOf(requestId: string | null) {
    assert.ok(requestId, 'the answer carries x-request-id')
    await tracer.flush()
    const call = otlp.spans.find((s) => s.kind === SERVER && s.attributes['gov.request.id'] === requestId)
    assert.ok(call, `a server span for request ${requestId} was exported`)
    const children = otlp.spans.filter((s) => s.parentSpanId === call.spanId)
    for (const child of children) {
      assert.equal(child.traceId, call.traceId)
      assert.ok(
        child.startNs >= call.startNs && child.endNs <= call.endNs,
        `${child.name} lies inside the call`,
      )
    }
    return {
      call,
      steps: children.filter((s) => s.kind === INTERNAL),
      upstream: children.filter((s) => s.kind === CLIENT),
    }
  }

  function step(steps: ReceivedSpan[], name: string, phase: string): ReceivedSpan {
    const found = steps.filter((s) => s.name === `step ${name}` && s.attributes['gov.step.phase'] === phase)
    assert.equal(found.length, 1, `one span for ${name} in the ${phase} phase`)
    return found[0]
  }

  it('joins the caller trace, has a span per step hook and one for the upstream request, and sends traceparent upstream', async () => {
    const traceId = randomBytes(16).toString('hex')
    const callerSpan = randomBytes(8).toString('hex')
    const prompt = `hello tracing ${run}`
    const session = `conversation-${run}`
    const res = await t.call('/v1/chat/completions', chatBody(prompt), {
      key,
      headers: {
        traceparent: `00-${traceId}-${callerSpan}-01`,
        tracestate: 'caller=7a',
        'x-gov-session': session,
      },
    })
    assert.equal(res.status, 200)
    const { call, steps, upstream } = await spansOf(res.headers.get('x-request-id'))

    assert.equal(call.traceId, traceId)
    assert.equal(call.parentSpanId, callerSpan)
    assert.equal(call.name, 'chat gpt-4o-mini')
    assert.equal(call.statusCode, 0)
    assert.equal(call.resource['service.name'], serviceName)
    const a = call.attributes
    assert.equal(a['gen_ai.operation.name'], 'chat')
    assert.equal(a['gen_ai.request.model'], 'gpt-4o-mini')
    assert.equal(a['gen_ai.response.model'], res.body.model)
    assert.equal(a['gen_ai.provider.name'], 'openai')
    assert.deepEqual(a['gen_ai.response.finish_reasons'], [res.body.choices[0].finish_reason])
    assert.equal(a['gen_ai.usage.input_tokens'], res.body.usage.prompt_tokens)
    assert.equal(a['gen_ai.usage.output_tokens'], res.body.usage.completion_tokens)
    assert.equal(a['gov.agent.id'], agentId)
    assert.equal(a['gov.pipeline.id'], pipelineId)
    assert.equal(a['gov.mode'], 'enforce')
    assert.equal(a['gov.outcome'], 'allowed')
    assert.equal(a['http.response.status_code'], 200)
    assert.match(String(a['gov.session.hash']), /^[0-9a-f]{32}$/)
    assert.equal(a['gov.steps.run'], Number(res.headers.get('x-gov-pipeline-steps')))

    // Request hooks of the three steps, then the response hooks of fx_pass and fx_block: a span each, with its verdict.
    assert.deepEqual(steps.map((s) => `${s.name}/${s.attributes['gov.step.phase']}`).sort(), [
      'step fx_block/request',
      'step fx_block/response',
      'step fx_pass/request',
      'step fx_pass/response',
      'step fx_throw/request',
    ])
    for (const s of steps) {
      assert.equal(s.attributes['gov.step.verdict'], 'continue')
      assert.equal(s.attributes['gov.step.enforced'], true)
      assert.equal(s.attributes['gov.step.findings'], 0)
      assert.equal(s.statusCode, 0)
    }
    assert.ok(
      step(steps, 'fx_pass', 'request').endNs <= upstream[0].startNs,
      'request hooks end before the upstream request starts',
    )

    assert.equal(upstream.length, 1)
    const up = upstream[0]
    assert.equal(up.name, 'chat gpt-4o-mini')
    assert.equal(up.attributes['gen_ai.provider.name'], 'openai')
    assert.equal(up.attributes['server.address'], '127.0.0.1')
    assert.equal(up.attributes['http.response.status_code'], 200)
    const sent = t.mock.requests.find((r) => JSON.stringify(r.body).includes(prompt))
    assert.ok(sent, 'the mock provider got the call')
    assert.equal(sent.headers.traceparent, `00-${traceId}-${up.spanId}-01`)
    assert.equal(sent.headers.tracestate, 'caller=7a')

    // Ids, counts and verdicts only: no prompt, answer or session text in any span of the trace.
    const exported = JSON.stringify(
      otlp.spans.filter((s) => s.traceId === traceId),
      (_k, v) => (typeof v === 'bigint' ? String(v) : v),
    )
    assert.ok(!exported.includes(prompt), 'the prompt is not exported')
    assert.ok(!exported.includes(session), 'the raw session id is not exported')
  })

  it('a step that blocks: its span carries the verdict, code and findings; no upstream span; a new trace without traceparent', async () => {
    const res = await t.call('/v1/chat/completions', chatBody('this is forbidden'), { key })
    assert.equal(res.status, 403)
    const { call, steps, upstream } = await spansOf(res.headers.get('x-request-id'))
    assert.equal(call.parentSpanId, undefined)
    assert.match(call.traceId, /^[0-9a-f]{32}$/)
    assert.equal(call.attributes['gov.outcome'], 'blocked')
    assert.equal(call.attributes['gov.error.code'], 'fx_word_found')
    assert.equal(call.attributes['http.response.status_code'], 403)
    assert.equal(call.attributes['gov.findings.count'], 1)
    assert.equal(call.attributes['gov.classification'], 'confidential')
    assert.equal(call.statusCode, 0, 'a refusal by policy is not a span error')
    const block = step(steps, 'fx_block', 'request')
    assert.equal(block.attributes['gov.step.verdict'], 'block')
    assert.equal(block.attributes['gov.step.code'], 'fx_word_found')
    assert.equal(block.attributes['gov.step.findings'], 1)
    assert.equal(block.attributes['gov.step.enforced'], true)
    assert.equal(upstream.length, 0)
    assert.ok(!steps.some((s) => s.attributes['gov.step.phase'] === 'response'))
  })

  it('a step that throws and a provider error set the span status to error', async () => {
    const thrown = await t.call('/v1/chat/completions', chatBody('boom'), { key })
    assert.equal(thrown.status, 500)
    const failed = await spansOf(thrown.headers.get('x-request-id'))
    const throwing = step(failed.steps, 'fx_throw', 'request')
    assert.equal(throwing.statusCode, STATUS_ERROR)
    assert.equal(throwing.attributes['error.type'], 'step_error')
    assert.equal(throwing.attributes['gov.step.verdict'], 'block')
    assert.ok(
      !JSON.stringify([throwing.attributes, throwing.statusMessage]).includes('exploded'),
      "the hook's own message stays in the log",
    )
    assert.equal(failed.call.statusCode, STATUS_ERROR)
    assert.equal(failed.call.attributes['error.type'], 'GOV_ERR_STEP_FAILED')

    t.mock.enqueue({ status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } })
    const provider = await t.call('/v1/chat/completions', chatBody(`provider down ${run}`), { key })
    assert.equal(provider.status, 503)
    const down = await spansOf(provider.headers.get('x-request-id'))
    assert.equal(down.upstream.length, 1)
    assert.equal(down.upstream[0].statusCode, STATUS_ERROR)
    assert.equal(down.upstream[0].attributes['http.response.status_code'], 503)
    assert.equal(down.call.statusCode, STATUS_ERROR)
    assert.equal(down.call.attributes['gov.outcome'], 'error')
    assert.equal(down.call.attributes['http.response.status_code'], 503)
  })

  it('a streamed Anthropic call: provider anthropic, its model, stop reason and usage', async () => {
    const res = await t.call('/v1/messages', messagesBody(`stream me ${run}`, { stream: true }), { key })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/)
    const { call, steps, upstream } = await spansOf(res.headers.get('x-request-id'))
    assert.equal(call.name, 'chat claude-sonnet-4-6')
    assert.equal(call.attributes['gov.vendor'], 'anthropic')
    assert.equal(call.attributes['gen_ai.provider.name'], 'anthropic')
    assert.equal(call.attributes['gen_ai.system'], 'anthropic')
    assert.equal(call.attributes['gen_ai.response.model'], 'claude-sonnet-4-6')
    assert.deepEqual(call.attributes['gen_ai.response.finish_reasons'], ['end_turn'])
    assert.equal(typeof call.attributes['gen_ai.usage.output_tokens'], 'number')
    assert.equal(upstream.length, 1)
    assert.equal(upstream[0].attributes['gen_ai.provider.name'], 'anthropic')
    assert.ok(steps.some((s) => s.attributes['gov.step.phase'] === 'response'))
  })

  it('hashes the session scoped by agent: same agent same hash, another agent another hash', async () => {
    const otherKey = await t.createAgent(`trace-other-${run}`, pipelineId)
    const headers = { 'x-gov-session': `shared-${run}` }
    const hashes: unknown[] = []
    for (const k of [key, key, otherKey]) {
      const res = await t.call('/v1/chat/completions', chatBody('hi'), { key: k, headers })
      assert.equal(res.status, 200)
      hashes.push((await spansOf(res.headers.get('x-request-id'))).call.attributes['gov.session.hash'])
    }
    assert.equal(hashes[0], hashes[1])
    assert.notEqual(hashes[0], hashes[2])
  })

  it('exports OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces', () => {
    assert.ok(otlp.posts.length > 0)
    for (const post of otlp.posts) {
      assert.equal(post.path, '/v1/traces')
      assert.match(post.contentType ?? '', /^application\/json/)
    }
  })
})

describe('tracing off (default)', () => {
  it('makes no tracer, loads no OpenTelemetry module and exports nothing, even with OTEL_* set', async () => {
    const otlp = await startOtlpReceiver()
    try {
      const testing = new URL('../../src/testing/test-gateway.js', import.meta.url).href
      const container = new URL('../../src/index.js', import.meta.url).href
      // A fresh process: this test file itself loads the SDK for the tests above.
      const script = `
        import { createRequire } from 'node:module'
        const { startTestGateway, chatBody } = await import(${JSON.stringify(testing)})
        const { TOKENS } = await import(${JSON.stringify(container)})
        const t = await startTestGateway({ env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: ${JSON.stringify(otlp.url)}, OTEL_SERVICE_NAME: 'gov-off',
        } })
        const key = await t.createAgent('trace-off-${run}')
        const res = await t.call('/v1/chat/completions', chatBody('hello'), {
          key, headers: { traceparent: '00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01' },
        })
        const registered = t.gateway.container.isRegistered(TOKENS.Tracer)
        const upstreamTraceparent = t.mock.requests.at(-1)?.headers.traceparent ?? null
        await t.close()
        const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@opentelemetry'))
        console.log(JSON.stringify({ status: res.status, registered, loaded, upstreamTraceparent }))
      `
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, GOV_TRACING: '' },
        timeout: 60_000,
      })
      const result = JSON.parse(stdout.trim().split('\n').at(-1) as string)
      assert.equal(result.status, 200)
      assert.equal(result.registered, false)
      // The API package alone is loaded by prom-client (its exemplars); no SDK, exporter or propagator is.
      assert.deepEqual(
        result.loaded.filter((path: string) => !path.includes('/@opentelemetry/api/')),
        [],
      )
      assert.equal(result.upstreamTraceparent, null, 'gov does not forward the caller traceparent when off')
      assert.equal(otlp.posts.length, 0)
    } finally {
      await otlp.close()
    }
  })
})
