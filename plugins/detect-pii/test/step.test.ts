import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { levelRank } from '@gov/core'
import {
  MemorySessions,
  makeAnswer,
  makeExchange,
  makeRequestContext,
  makeResponseContext,
  makeServices,
} from '@gov/core/testing'
import plugin, { PII_BLOCK_CODE, PiiSettings, type PiiSettings as PiiSettingsType } from '../src/index.js'
import { withDefaults } from '../src/settings.js'
import { makeStep } from './helpers.js'

const userSays = (text: string) => makeExchange([{ source: 'user', text }])

describe('detect_pii step', () => {
  it('declares its name, flag and defaults', () => {
    assert.equal(plugin.name, 'detect_pii')
    assert.deepEqual(plugin.flags?.pii.values, ['allow', 'mask', 'block'])
    assert.equal(withDefaults().action, 'mask')
    assert.equal((PiiSettings as unknown as { additionalProperties: boolean }).additionalProperties, false)
  })

  it('masks values with placeholders and reports findings without the values', async () => {
    const { step, services } = await makeStep()
    const ex = userSays('Email jane.doe@example.com, card 4111 1111 1111 1111, ask Randy Shaw.')
    const ctx = makeRequestContext(ex)
    const verdict = await step.onRequest(ctx)
    assert.equal(verdict.kind, 'continue')
    assert.equal(
      ex.messages[0].parts[0].text,
      'Email <EMAIL_ADDRESS_1>, card <CREDIT_CARD_1>, ask <PERSON_1>.',
    )
    assert.deepEqual(ctx.findings.map((f) => f.type).sort(), ['CREDIT_CARD', 'EMAIL_ADDRESS', 'PERSON'])
    const card = ctx.findings.find((f) => f.type === 'CREDIT_CARD')
    assert.equal(card?.level, 'restricted')
    assert.ok(!JSON.stringify(ctx.findings).includes('4111'))
    assert.equal(services.counts.get('gov_pii_detections_total{"type":"PERSON"}'), 1)
  })

  it('keeps placeholders stable across the turns of one session', async () => {
    const memorySessions = new MemorySessions()
    const { step } = await makeStep({}, makeServices('detect_pii', { memorySessions }))
    const call = { sessionId: 'sess-1' }
    const first = userSays('My name is Randy Shaw, mail randy@example.org')
    await step.onRequest(makeRequestContext(first, { call }))
    const second = makeExchange([
      { source: 'user', text: 'My name is Randy Shaw, mail randy@example.org' },
      { source: 'assistant', text: 'Hello Randy Shaw!' },
      { source: 'user', text: 'Also cc Maria Gonzalez and randy@example.org' },
    ])
    await step.onRequest(makeRequestContext(second, { call }))
    assert.equal(first.messages[0].parts[0].text, 'My name is <PERSON_1>, mail <EMAIL_ADDRESS_1>')
    assert.equal(second.messages[0].parts[0].text, first.messages[0].parts[0].text)
    assert.equal(second.messages[1].parts[0].text, 'Hello <PERSON_1>!')
    assert.equal(second.messages[2].parts[0].text, 'Also cc <PERSON_2> and <EMAIL_ADDRESS_1>')
    // A second instance (another replica) sharing the store sees the same mapping.
    const { step: other } = await makeStep({}, makeServices('detect_pii', { memorySessions }))
    const third = userSays('Maria Gonzalez again')
    await other.onRequest(makeRequestContext(third, { call }))
    assert.equal(third.messages[0].parts[0].text, '<PERSON_2> again')
  })

  it('numbers placeholders per call when there is no session', async () => {
    const { step } = await makeStep()
    const a = userSays('Randy Shaw')
    const b = userSays('Maria Gonzalez')
    await step.onRequest(makeRequestContext(a))
    await step.onRequest(makeRequestContext(b))
    assert.equal(a.messages[0].parts[0].text, '<PERSON_1>')
    assert.equal(b.messages[0].parts[0].text, '<PERSON_1>')
  })

  it('restores original values in the answer text and JSON-escapes them in tool arguments', async () => {
    const { step } = await makeStep({ scan_response: false })
    const state = new Map<string, unknown>()
    const ex = makeExchange([
      { source: 'user', text: 'Send the file to Randy Shaw at randy@example.org' },
      { source: 'tool', toolResults: [{ toolCallId: 'c1', text: 'ship to 221B Baker Street\nLondon' }] },
    ])
    await step.onRequest(makeRequestContext(ex, { state }))
    const masked = ex.messages[1].parts[0].text
    assert.equal(masked, 'ship to <STREET_ADDRESS_1>')
    const answer = makeAnswer('I will mail <PERSON_1> at <EMAIL_ADDRESS_1>.', [
      { id: 'call_1', name: 'send', arguments: '{"to":"<EMAIL_ADDRESS_1>","address":"<STREET_ADDRESS_1>"}' },
    ])
    await step.onBufferedResponse(makeResponseContext(ex, answer, { state }))
    assert.equal(answer.message.parts[0].text, 'I will mail Randy Shaw at randy@example.org.')
    const args = JSON.parse(answer.message.toolCalls[0].arguments.text)
    assert.equal(args.to, 'randy@example.org')
    // The value holds a line break: raw in the JSON text it would be invalid JSON.
    assert.equal(args.address, '221B Baker Street\nLondon')
  })

  it('never restores another agent’s values, whatever session id it sends', async () => {
    const memorySessions = new MemorySessions()
    const { step } = await makeStep({}, makeServices('detect_pii', { memorySessions }))
    const a = { sessionId: 'shared-1', agentId: 'agent-a' }
    const b = { sessionId: 'shared-1', agentId: 'agent-b' }
    const mine = userSays('my email is victim.person@corp-secret.example')
    await step.onRequest(makeRequestContext(mine, { call: a }))
    assert.equal(mine.messages[0].parts[0].text, 'my email is <EMAIL_ADDRESS_1>')
    const answer = makeAnswer('A short note to <EMAIL_ADDRESS_1>.')
    await step.onBufferedResponse(
      makeResponseContext(userSays('Please write a short note to <EMAIL_ADDRESS_1>'), answer, { call: b }),
    )
    assert.equal(answer.message.parts[0].text, 'A short note to <EMAIL_ADDRESS_1>.')
    // Agent B's own values number from 1 in its own session.
    const theirs = userSays('mail bob@example.org')
    await step.onRequest(makeRequestContext(theirs, { call: b }))
    assert.equal(theirs.messages[0].parts[0].text, 'mail <EMAIL_ADDRESS_1>')
  })

  it('forgets a session as a whole once it was unused for its TTL, and the TTL slides with use', async () => {
    let now = 1_000_000
    const memorySessions = new MemorySessions(() => now)
    const { step } = await makeStep(
      { session_ttl_seconds: 60 },
      makeServices('detect_pii', { memorySessions }),
    )
    const call = { sessionId: 'sess-ttl' }
    const first = userSays('write to ann@example.org')
    await step.onRequest(makeRequestContext(first, { call }))
    now += 50_000
    // Used again before expiry: the whole map lives on.
    const again = makeAnswer('Done: <EMAIL_ADDRESS_1>')
    await step.onBufferedResponse(makeResponseContext(userSays('?'), again, { call }))
    assert.equal(again.message.parts[0].text, 'Done: ann@example.org')
    now += 50_000
    const still = makeAnswer('<EMAIL_ADDRESS_1>')
    await step.onBufferedResponse(makeResponseContext(userSays('?'), still, { call }))
    assert.equal(still.message.parts[0].text, 'ann@example.org')
    now += 61_000
    // Expired as a whole: the counter restarts and the new value cannot be confused with the old one.
    const later = userSays('write to zed@example.org')
    await step.onRequest(makeRequestContext(later, { call }))
    assert.equal(later.messages[0].parts[0].text, 'write to <EMAIL_ADDRESS_1>')
    const answer = makeAnswer('<EMAIL_ADDRESS_1>')
    await step.onBufferedResponse(makeResponseContext(userSays('?'), answer, { call }))
    assert.equal(answer.message.parts[0].text, 'zed@example.org')
  })

  it('restores placeholders of earlier turns of the session', async () => {
    const memorySessions = new MemorySessions()
    const { step } = await makeStep({}, makeServices('detect_pii', { memorySessions }))
    const call = { sessionId: 'sess-2' }
    await step.onRequest(makeRequestContext(userSays('Call Randy Shaw'), { call }))
    const later = userSays('And now?')
    const answer = makeAnswer('Calling <PERSON_1> now; <PERSON_9> is unknown.')
    await step.onBufferedResponse(makeResponseContext(later, answer, { call }))
    assert.equal(answer.message.parts[0].text, 'Calling Randy Shaw now; <PERSON_9> is unknown.')
  })

  it('blocks with pii_detected and names types, never values', async () => {
    const { step } = await makeStep({ action: 'block' })
    const ex = userSays('SSN 536-32-3065 for Randy Shaw')
    const verdict = await step.onRequest(makeRequestContext(ex))
    assert.equal(verdict.kind, 'block')
    if (verdict.kind !== 'block') return
    assert.equal(verdict.code, PII_BLOCK_CODE)
    assert.equal(verdict.status, 403)
    assert.match(verdict.reason, /US_SSN/)
    assert.ok(!verdict.reason.includes('536'))
    assert.equal(ex.messages[0].parts[0].text, 'SSN 536-32-3065 for Randy Shaw')
  })

  it('allow only reports and counts', async () => {
    const { step, services } = await makeStep({ action: 'allow' })
    const ex = userSays('mail jane@example.com')
    const ctx = makeRequestContext(ex)
    assert.equal((await step.onRequest(ctx)).kind, 'continue')
    assert.equal(ex.messages[0].parts[0].text, 'mail jane@example.com')
    assert.equal(ctx.findings.length, 1)
    assert.equal(services.counts.get('gov_pii_detections_total{"type":"EMAIL_ADDRESS"}'), 1)
  })

  it('lets the caller flag pii=block tighten a mask pipeline', async () => {
    const { step } = await makeStep({ action: 'mask' })
    const flags = new Map([['pii', 'block']])
    const verdict = await step.onRequest(
      makeRequestContext(userSays('mail jane@example.com'), { call: { flags } }),
    )
    assert.equal(verdict.kind, 'block')
  })

  it('reports new personal data in the answer and blocks it with action block', async () => {
    const { step } = await makeStep({ action: 'block' })
    const ex = userSays('Who runs the Oslo office?')
    const clean = makeAnswer('Nobody yet.')
    assert.equal((await step.onBufferedResponse(makeResponseContext(ex, clean))).kind, 'continue')
    const leaky = makeAnswer('Ask Randy Shaw, randy@example.org')
    const ctx = makeResponseContext(ex, leaky)
    const verdict = await step.onBufferedResponse(ctx)
    assert.equal(verdict.kind, 'block')
    assert.ok(ctx.findings.some((f) => f.type === 'EMAIL_ADDRESS' && f.source === 'assistant'))
  })

  it('does not report placeholders the model repeats as new data', async () => {
    const { step } = await makeStep()
    const state = new Map<string, unknown>()
    const ex = userSays('Write to jane@example.com')
    await step.onRequest(makeRequestContext(ex, { state }))
    const ctx = makeResponseContext(ex, makeAnswer('Done: <EMAIL_ADDRESS_1> and <PERSON_1>.'), { state })
    await step.onBufferedResponse(ctx)
    assert.equal(ctx.findings.length, 0)
  })

  it('honours types, min_score, entities and allow_list', async () => {
    const text = 'Randy Shaw, jane@example.com, 192.168.1.20'
    const found = async (overrides: Partial<PiiSettingsType>) => {
      const { step } = await makeStep({ action: 'allow', ...overrides })
      const ctx = makeRequestContext(userSays(text))
      await step.onRequest(ctx)
      return ctx.findings.map((f) => f.type).sort()
    }
    assert.deepEqual(await found({}), ['EMAIL_ADDRESS', 'IP_ADDRESS', 'PERSON'])
    assert.deepEqual(await found({ types: ['EMAIL_ADDRESS'] }), ['EMAIL_ADDRESS'])
    assert.deepEqual(await found({ entities: false }), ['EMAIL_ADDRESS', 'IP_ADDRESS'])
    assert.deepEqual(await found({ min_score: 0.92 }), ['EMAIL_ADDRESS'])
    assert.deepEqual(await found({ allow_list: ['JANE@example.com'] }), ['IP_ADDRESS', 'PERSON'])
  })

  it('scans every text: system prompt, tool results and earlier tool-call arguments', async () => {
    const { step } = await makeStep({ action: 'allow' })
    const ex = makeExchange([
      { source: 'system', text: 'Operator: ops@example.com' },
      { source: 'assistant', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"ip":"10.1.2.3"}' }] },
      { source: 'tool', toolResults: [{ toolCallId: 'c1', text: 'IBAN DE89 3704 0044 0532 0130 00' }] },
    ])
    const ctx = makeRequestContext(ex)
    await step.onRequest(ctx)
    assert.deepEqual(
      ctx.findings.map((f) => [f.type, f.source]),
      [
        ['EMAIL_ADDRESS', 'system'],
        ['IP_ADDRESS', 'assistant'],
        ['IBAN_CODE', 'tool'],
      ],
    )
    assert.ok(ctx.findings.every((f) => levelRank(f.level) >= levelRank('internal')))
  })

  it('masks inside JSON tool arguments and keeps them valid JSON', async () => {
    const { step } = await makeStep()
    const ex = makeExchange([
      {
        source: 'assistant',
        toolCalls: [{ id: 'c1', name: 'mail', arguments: '{"to":"jane@example.com","n":1}' }],
      },
    ])
    await step.onRequest(makeRequestContext(ex))
    assert.deepEqual(JSON.parse(ex.messages[0].parts[0].text), { to: '<EMAIL_ADDRESS_1>', n: 1 })
  })

  it('handles unicode text with correct UTF-16 offsets', async () => {
    const { step } = await makeStep({ action: 'allow' })
    const text = '🙂👍 Grüße an Jürgen Müller — 📧 jürgen@beispiel.de ✓'
    const ctx = makeRequestContext(userSays(text))
    await step.onRequest(ctx)
    const values = ctx.findings.map((f) => text.slice(f.span!.start, f.span!.end))
    assert.deepEqual(values, ['Jürgen Müller', 'jürgen@beispiel.de'])
  })

  it('analyses a 200 KB text in-thread in pieces and finds values at both ends', async () => {
    const { step } = await makeStep({ action: 'allow', offload_above_bytes: 0 })
    const filler = 'The quarterly report covers revenue, churn and hiring plans for the next year. '
    const body = filler.repeat(Math.ceil(200_000 / filler.length))
    const text = `Contact jane@example.com first.\n${body}\nFinally call +44 20 7946 0958.`
    assert.ok(text.length > 200_000)
    const ctx = makeRequestContext(userSays(text))
    let ticks = 0
    const timer = setInterval(() => ticks++, 0)
    await step.onRequest(ctx)
    clearInterval(timer)
    const found = ctx.findings.map((f) => [f.type, text.slice(f.span!.start, f.span!.end)])
    assert.deepEqual(found, [
      ['EMAIL_ADDRESS', 'jane@example.com'],
      ['PHONE_NUMBER', '+44 20 7946 0958'],
    ])
    assert.ok(ticks > 0, 'the event loop ran between pieces')
  })

  it('analyses each text once: the next turn costs only its new message', async () => {
    const { step } = await makeStep()
    const history = [{ source: 'user' as const, text: 'I am Randy Shaw' }]
    await step.onRequest(makeRequestContext(makeExchange(history)))
    assert.equal(step.analyses, 1)
    await step.onRequest(
      makeRequestContext(
        makeExchange([...history, { source: 'user', text: 'and my mail is r@example.org' }]),
      ),
    )
    assert.equal(step.analyses, 2)
    await step.onRequest(makeRequestContext(makeExchange(history)))
    assert.equal(step.analyses, 2)
  })
})
