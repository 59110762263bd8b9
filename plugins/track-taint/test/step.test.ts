import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallInfo, Finding } from '@gov/core'
import {
  type FakeMessage,
  MemorySessions,
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeResponseContext,
  makeServices,
  makeToolCallContext,
} from '@gov/core/testing'
import { resolveSettings, TrackTaintStep } from '../src/index.js'

const SETTINGS = resolveSettings({
  sinks: { 'send_*': ['pii', 'secret', 'untrusted'], http_post: ['confidential', 'restricted'] },
  untrusted_tools: ['web_*'],
})

function finding(step: string, type: string, extra: Partial<Finding> = {}): Finding {
  return { step, type, phase: 'request', score: 0.9, level: 'internal', ...extra }
}

function replica(sessions = new MemorySessions()) {
  const services = makeServices('track_taint', { memorySessions: sessions })
  return { step: new TrackTaintStep(SETTINGS, services), services, sessions }
}

/** One call: the request phase with `findings`, then the answer's tool call to `tool`, if any. */
async function turn(
  step: TrackTaintStep,
  call: Partial<CallInfo>,
  options: {
    findings?: Finding[]
    messages?: FakeMessage[]
    tool?: string
    responseFindings?: Finding[]
  } = {},
) {
  const exchange = makeExchange(options.messages ?? [{ source: 'user', text: 'hi' }])
  const state = new Map<string, unknown>()
  const labels = new Set<string>()
  const findings = [...(options.findings ?? [])]
  const request = await step.onRequest(makeRequestContext(exchange, { call, state, findings, labels }))
  assert.equal(request.kind, 'continue')
  const answer = makeAnswer(
    undefined,
    options.tool ? [{ id: 'c1', name: options.tool, arguments: '{}' }] : [],
  )
  findings.push(...(options.responseFindings ?? []))
  await step.onBufferedResponse(makeResponseContext(exchange, answer, { call, state, findings, labels }))
  const toolCall = answer.message.toolCalls[0]
  const verdict = toolCall
    ? await step.onToolCall(
        makeToolCallContext(exchange, answer, toolCall, { call, state, findings, labels }),
      )
    : undefined
  return { verdict, labels, findings }
}

describe('track_taint', () => {
  it('labels the session from earlier findings and refuses a sink on a later turn', async () => {
    const { step } = replica()
    const call = { agentId: 'agent-a', sessionId: 's1' }
    const first = await turn(step, call, {
      findings: [
        finding('detect_pii', 'EMAIL_ADDRESS', { level: 'confidential' }),
        finding('scan_secrets', 'aws_access_key', { level: 'restricted' }),
      ],
    })
    assert.deepEqual([...first.labels].sort(), ['confidential', 'pii', 'restricted', 'secret'])
    assert.equal(first.findings.filter((f) => f.type === 'taint_label_added').length, 4)
    const later = await turn(step, { ...call, requestId: 'req-2' }, { tool: 'send_email' })
    assert.equal(later.verdict?.kind, 'block')
    assert.equal(later.verdict?.kind === 'block' && later.verdict.code, 'taint_blocked')
    assert.equal(later.verdict?.kind === 'block' && (later.verdict.status ?? 403), 403)
    assert.match(later.verdict?.kind === 'block' ? later.verdict.reason : '', /pii, secret/)
    assert.deepEqual(
      [...later.labels].sort(),
      ['confidential', 'pii', 'restricted', 'secret'],
      'the token carries the session labels',
    )
    const other = await turn(step, { ...call, requestId: 'req-3' }, { tool: 'search' })
    assert.equal(other.verdict?.kind, 'continue', 'a tool that is no sink is called freely')
  })

  it('never lets another agent or another session see the labels', async () => {
    const { step } = replica()
    await turn(
      step,
      { agentId: 'agent-a', sessionId: 'shared' },
      { findings: [finding('detect_pii', 'PERSON')] },
    )
    const otherAgent = await turn(step, { agentId: 'agent-b', sessionId: 'shared' }, { tool: 'send_email' })
    assert.equal(otherAgent.verdict?.kind, 'continue')
    assert.equal(otherAgent.labels.size, 0)
    const otherSession = await turn(step, { agentId: 'agent-a', sessionId: 'other' }, { tool: 'send_email' })
    assert.equal(otherSession.verdict?.kind, 'continue')
  })

  it('labels untrusted the result of an untrusted tool, named by the earlier tool call', async () => {
    const { step } = replica()
    const call = { agentId: 'agent-a', sessionId: 's-web' }
    const messages: FakeMessage[] = [
      { source: 'user', text: 'find the docs' },
      { source: 'assistant', toolCalls: [{ id: 'w1', name: 'web_fetch', arguments: '{"url":"x"}' }] },
      { source: 'tool', toolResults: [{ toolCallId: 'w1', text: 'page text' }] },
    ]
    const result = await turn(step, call, { messages, tool: 'send_email' })
    assert.equal(result.verdict?.kind === 'block' && result.verdict.code, 'taint_blocked')
    const described = await step.describeSession(
      replica()
        .sessions.store('x')
        .scope({ agentId: 'a' } as CallInfo),
    )
    assert.deepEqual(described, { labels: {} }, 'an empty session describes as no labels')
  })

  it('labels untrusted a tool result where injection was found, not a trusted tool result', async () => {
    const { step } = replica()
    const clean = await turn(
      step,
      { agentId: 'a', sessionId: 's' },
      {
        messages: [
          { source: 'assistant', toolCalls: [{ id: 'r1', name: 'read_file', arguments: '{}' }] },
          { source: 'tool', toolResults: [{ toolCallId: 'r1', text: 'ok' }] },
        ],
        findings: [finding('detect_injection', 'prompt_injection', { source: 'user' })],
        tool: 'send_email',
      },
    )
    assert.equal(clean.verdict?.kind, 'continue', 'a direct injection attempt is not untrusted input')
    const injected = await turn(
      step,
      { agentId: 'a', sessionId: 's' },
      {
        findings: [finding('detect_injection', 'indirect_prompt_injection', { source: 'tool' })],
        tool: 'send_email',
      },
    )
    assert.equal(injected.verdict?.kind === 'block' && injected.verdict.code, 'taint_blocked')
  })

  it('records labels from findings on the answer (the model answering with PII)', async () => {
    const { step } = replica()
    const result = await turn(
      step,
      { agentId: 'a', sessionId: 's' },
      {
        responseFindings: [finding('detect_pii', 'PHONE_NUMBER', { phase: 'response' })],
        tool: 'send_sms',
      },
    )
    assert.equal(result.verdict?.kind === 'block' && result.verdict.code, 'taint_blocked')
    assert.ok(result.labels.has('pii'))
  })

  it('without a session: the call own labels count, nothing accumulates', async () => {
    const { step } = replica()
    const tainted = await turn(
      step,
      { agentId: 'a' },
      { findings: [finding('detect_pii', 'PERSON')], tool: 'send_email' },
    )
    assert.equal(tainted.verdict?.kind === 'block' && tainted.verdict.code, 'taint_blocked')
    const next = await turn(step, { agentId: 'a' }, { tool: 'send_email' })
    assert.equal(next.verdict?.kind, 'continue')
  })

  it('keeps the first origin of a label and shows it to admins', async () => {
    const { step, sessions } = replica()
    const call = { agentId: 'agent-a', sessionId: 's-origin' }
    await turn(
      step,
      { ...call, requestId: 'req-first' },
      { findings: [finding('detect_pii', 'EMAIL_ADDRESS', { messageIndex: 0 })] },
    )
    await turn(step, { ...call, requestId: 'req-second' }, { findings: [finding('detect_pii', 'PERSON')] })
    const session = sessions.store('track_taint').of({ ...call } as CallInfo)
    assert.ok(session)
    const described = (await step.describeSession(session)) as {
      labels: Record<string, Record<string, unknown>>
    }
    assert.deepEqual(Object.keys(described.labels), ['pii'])
    assert.equal(described.labels.pii.requestId, 'req-first')
    assert.equal(described.labels.pii.type, 'EMAIL_ADDRESS')
    assert.equal(described.labels.pii.step, 'detect_pii')
    await session.clear()
    const cleared = await turn(step, call, { tool: 'send_email' })
    assert.equal(cleared.verdict?.kind, 'continue', 'a cleared session carries no labels')
  })

  it('enforces through one replica taint set through another', async () => {
    const shared = new MemorySessions()
    const one = replica(shared).step
    const two = replica(shared).step
    await turn(one, { agentId: 'a', sessionId: 'r' }, { findings: [finding('scan_secrets', 'github_pat')] })
    const result = await turn(two, { agentId: 'a', sessionId: 'r' }, { tool: 'send_email' })
    assert.equal(result.verdict?.kind === 'block' && result.verdict.code, 'taint_blocked')
  })

  it('adds a label once under concurrent calls', async () => {
    const { step, services } = replica()
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        turn(
          step,
          { agentId: 'a', sessionId: 'c', requestId: `r${i}` },
          { findings: [finding('detect_pii', 'PERSON')] },
        ),
      ),
    )
    const added = results.flatMap((r) => r.findings).filter((f) => f.type === 'taint_label_added')
    assert.equal(added.length, 1)
    assert.equal(services.counts.get('gov_taint_labels_total{"label":"pii"}'), 1)
  })
})
