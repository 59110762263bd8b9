import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { JSON_CODEC, TextPart, Verdicts } from '@gov/core'
import {
  makeAnswer,
  makeCall,
  makeExchange,
  makeRequestContext,
  makeResponseContext,
  makeServices,
} from '@gov/core/testing'
import plugin, {
  resolveSettings,
  SCAN_SECRETS_ERRORS,
  ScanSecretsSettingsSchema,
  SECRET_DETECTED,
  SECRET_KIND_IDS,
} from '../src/index.js'
import { alnum, checksummed, hex, P, pem } from './fixtures.js'
import { makeStep, scanText } from './helpers.js'

const githubToken = () => checksummed(P.ghp)
const stripeKey = () => `${P.skLive}${alnum(40)}`

describe('plugin object', () => {
  it('is named scan_secrets, carries its package version and accepts {} as settings', () => {
    assert.equal(plugin.name, 'scan_secrets')
    assert.equal(plugin.packageName, '@gov/step-scan-secrets')
    assert.match(plugin.version, /^\d+\.\d+\.\d+/)
    assert.equal(plugin.core, '>=0.3.0 <0.4.0')
    const settings = resolveSettings()
    assert.equal(settings.action, 'redact')
    assert.deepEqual(settings.kinds, {})
    assert.equal('on_error' in ScanSecretsSettingsSchema.properties, false)
  })

  it('lists every kind in the settings schema', () => {
    assert.deepEqual(
      Object.keys(ScanSecretsSettingsSchema.properties.kinds.properties).sort(),
      [...SECRET_KIND_IDS].sort(),
    )
  })

  it('declares the secrets flag over action, least strict first', () => {
    assert.deepEqual(plugin.flags?.secrets, { setting: 'action', values: ['allow', 'redact', 'block'] })
  })

  it('rejects an unknown kind with a coded error', async () => {
    await assert.rejects(
      async () => plugin.create(resolveSettings({ kinds: { no_such_kind: false } }), makeServices()),
      { code: SCAN_SECRETS_ERRORS.UNKNOWN_KIND },
    )
  })

  it('rejects an allow_list regex that does not compile', async () => {
    await assert.rejects(async () => makeStep({ allow_list: ['/([a-z/'] }), {
      code: SCAN_SECRETS_ERRORS.ALLOW_LIST_INVALID,
    })
  })
})

describe('onRequest', () => {
  it('redacts by default, in every part: system prompt, user text, tool results and earlier tool-call arguments', async () => {
    const step = await makeStep()
    const [s1, s2, s3, s4] = [githubToken(), stripeKey(), githubToken(), stripeKey()]
    const exchange = makeExchange([
      { source: 'system', text: `deploy with ${s1}` },
      { source: 'user', text: `my key is ${s2}` },
      {
        source: 'assistant',
        toolCalls: [{ id: 'c1', name: 'http', arguments: JSON.stringify({ header: `Bearer ${s3}` }) }],
      },
      { source: 'tool', toolResults: [{ toolCallId: 'c1', text: `ok, key ${s4}` }] },
    ])
    const ctx = makeRequestContext(exchange)
    assert.deepEqual(step.onRequest(ctx), Verdicts.continue())
    const texts = exchange.messages.flatMap((m) => m.parts.map((p) => p.text))
    assert.deepEqual(texts, [
      'deploy with [REDACTED:github_token]',
      'my key is [REDACTED:stripe_key]',
      JSON.stringify({ header: 'Bearer [REDACTED:github_token]' }),
      'ok, key [REDACTED:stripe_key]',
    ])
    assert.deepEqual(
      ctx.findings.map((f) => [f.type, f.source, f.messageIndex, f.detail?.action]),
      [
        ['github_token', 'system', 0, 'redact'],
        ['stripe_key', 'user', 1, 'redact'],
        ['github_token', 'assistant', 2, 'redact'],
        ['stripe_key', 'tool', 3, 'redact'],
      ],
    )
    for (const f of ctx.findings) assert.ok(f.span?.partId.startsWith('messages['))
  })

  it('blocks with secret_detected (403) and a reason that names kinds, not values', async () => {
    const step = await makeStep({ action: 'block' })
    const secret = stripeKey()
    const exchange = makeExchange([{ source: 'user', text: `charge with ${secret}` }])
    const ctx = makeRequestContext(exchange)
    const verdict = step.onRequest(ctx)
    assert.equal(verdict.kind, 'block')
    assert.ok(verdict.kind === 'block')
    assert.equal(verdict.code, SECRET_DETECTED)
    assert.equal(verdict.status, 403)
    assert.ok(!verdict.reason.includes(secret))
    assert.match(verdict.reason, /stripe_key/)
    assert.equal(exchange.messages[0].parts[0].text, `charge with ${secret}`)
  })

  it('allow reports findings and leaves the text alone', async () => {
    const step = await makeStep({ action: 'allow' })
    const text = `token ${githubToken()}`
    const exchange = makeExchange([{ source: 'user', text }])
    const ctx = makeRequestContext(exchange)
    assert.deepEqual(step.onRequest(ctx), Verdicts.continue())
    assert.equal(ctx.findings.length, 1)
    assert.equal(exchange.messages[0].parts[0].text, text)
    assert.equal(exchange.messages[0].parts[0].edited, false)
  })

  it('lets the secrets flag pick the action for one call', async () => {
    const step = await makeStep({ action: 'redact' })
    const exchange = makeExchange([{ source: 'user', text: `key ${stripeKey()}` }])
    const ctx = makeRequestContext(exchange, { call: makeCall({ flags: new Map([['secrets', 'block']]) }) })
    assert.equal(step.onRequest(ctx).kind, 'block')
  })

  it('continues without findings on a clean conversation', async () => {
    const step = await makeStep({ action: 'block' })
    const ctx = makeRequestContext(
      makeExchange([{ source: 'user', text: 'How do I rotate an API key safely?' }]),
    )
    assert.deepEqual(step.onRequest(ctx), Verdicts.continue())
    assert.equal(ctx.findings.length, 0)
  })

  it('counts detections in a metric by kind and phase', async () => {
    const services = makeServices('scan_secrets')
    const step = await plugin.create(resolveSettings(), services)
    step.onRequest?.(
      makeRequestContext(makeExchange([{ source: 'user', text: `k ${stripeKey()} ${stripeKey()}` }])),
    )
    assert.equal(services.counts.get('gov_secret_detections_total{"kind":"stripe_key","phase":"request"}'), 2)
  })
})

describe('onBufferedResponse', () => {
  it('redacts the answer text and keeps tool-call arguments valid JSON', async () => {
    const step = await makeStep()
    const exchange = makeExchange([{ source: 'user', text: 'set up the deploy' }])
    const key = pem('RSA PRIVATE KEY')
    const args = JSON.stringify({ path: '/home/dev/.ssh/id_rsa', content: key, token: githubToken() })
    const answer = makeAnswer(`Use ${stripeKey()} for billing.`, [
      { id: 'c1', name: 'write_file', arguments: args },
    ])
    const ctx = makeResponseContext(exchange, answer)
    assert.deepEqual(step.onBufferedResponse(ctx), Verdicts.continue())
    const [text, toolArgs] = answer.message.parts
    assert.equal(text.text, 'Use [REDACTED:stripe_key] for billing.')
    const parsed = JSON.parse(toolArgs.text)
    assert.deepEqual(parsed, {
      path: '/home/dev/.ssh/id_rsa',
      content: '[REDACTED:private_key]',
      token: '[REDACTED:github_token]',
    })
    assert.deepEqual(
      ctx.findings.map((f) => f.type),
      ['stripe_key', 'private_key', 'github_token'],
    )
  })

  it('writes through a JSON codec (Anthropic tool_use input) without breaking it', async () => {
    const step = await makeStep()
    const holder: Record<string, unknown> = {
      input: {
        query: 'select 1',
        dsn: `postgres://app:${alnum(20)}@db:5432/app`,
        note: 'quote " and \\ stay',
      },
    }
    const part = new TextPart({
      id: 'content[0].input',
      messageIndex: 0,
      source: 'assistant',
      kind: 'tool_arguments',
      holder,
      key: 'input',
      codec: JSON_CODEC,
    })
    const answer = makeAnswer('done')
    const message = { ...answer.message, parts: [part] }
    const ctx = makeResponseContext(makeExchange([]), { ...answer, message })
    step.onBufferedResponse(ctx)
    assert.deepEqual(holder.input, {
      query: 'select 1',
      dsn: 'postgres://app:[REDACTED:database_url]@db:5432/app',
      note: 'quote " and \\ stay',
    })
  })

  it('blocks an answer that leaks a secret when action is block', async () => {
    const step = await makeStep({ action: 'block' })
    const ctx = makeResponseContext(makeExchange([]), makeAnswer(`AWS key: ${pem('EC PRIVATE KEY', 200)}`))
    const verdict = step.onBufferedResponse(ctx)
    assert.ok(verdict.kind === 'block')
    assert.equal(verdict.code, SECRET_DETECTED)
    assert.match(verdict.reason, /answer/)
  })
})

describe('settings', () => {
  it('kinds: false switches a kind off', async () => {
    const step = await makeStep({ action: 'allow', kinds: { jwt: false } })
    const token = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"sub":"1"}').toString('base64url')}.${alnum(43)}`
    assert.equal(scanText(token, step).length, 0)
    assert.equal(scanText(token).length, 1)
  })

  it('allow_list skips exact values and /regex/ matches', async () => {
    const listed = stripeKey()
    const step = await makeStep({ action: 'allow', allow_list: [listed, `/^${P.skLive}DEMO/`] })
    assert.equal(scanText(`a ${listed}`, step).length, 0)
    assert.equal(scanText(`b ${P.skLive}DEMO${alnum(30)}`, step).length, 0)
    assert.equal(scanText(`c ${stripeKey()}`, step).length, 1)
  })

  it('entropy_threshold decides generic secrets', async () => {
    const lowEntropy = 'api_key = "a9a9a9b8b8b8a9a9a9b8"'
    assert.equal(scanText(lowEntropy).length, 0)
    const permissive = await makeStep({ action: 'allow', entropy_threshold: 1.5 })
    assert.equal(scanText(lowEntropy, permissive)[0]?.type, 'generic_secret')
  })

  it('min_score drops tokens whose provider checksum fails', async () => {
    const bad = checksummed(P.ghp, true)
    const [finding] = scanText(`token ${bad}`)
    assert.equal(finding.detail?.checksum, 'invalid')
    assert.ok(finding.score < 0.6)
    const strict = await makeStep({ action: 'allow', min_score: 0.8 })
    assert.equal(scanText(`token ${bad}`, strict).length, 0)
    assert.equal(scanText(`token ${checksummed(P.ghp)}`, strict)[0]?.detail?.checksum, 'valid')
  })
})

describe('texts', () => {
  it('keeps offsets right around unicode (emoji, CJK, RTL)', async () => {
    const step = await makeStep()
    const secret = stripeKey()
    const text = `🔑 clé: ${secret} — 密钥 ✅ مفتاح`
    const exchange = makeExchange([{ source: 'user', text }])
    const ctx = makeRequestContext(exchange)
    step.onRequest(ctx)
    const f = ctx.findings[0]
    assert.equal(text.slice(f.span!.start, f.span!.end), secret)
    assert.equal(exchange.messages[0].parts[0].text, '🔑 clé: [REDACTED:stripe_key] — 密钥 ✅ مفتاح')
  })

  it('scans a 200 KB text and finds the secrets at its start, middle and end', async () => {
    const step = await makeStep()
    const filler = 'The quarterly report covers revenue, churn and hiring plans for every region. '.repeat(
      2600,
    )
    const half = filler.length >> 1
    const text = `${githubToken()} ${filler.slice(0, half)} ${pem('OPENSSH PRIVATE KEY')} ${filler.slice(half)} ${stripeKey()}`
    assert.ok(text.length > 200_000)
    const exchange = makeExchange([{ source: 'user', text }])
    const ctx = makeRequestContext(exchange)
    step.onRequest(ctx)
    assert.deepEqual(
      ctx.findings.map((f) => f.type),
      ['github_token', 'private_key', 'stripe_key'],
    )
    const redacted = exchange.messages[0].parts[0].text
    assert.ok(redacted.startsWith('[REDACTED:github_token] The quarterly'))
    assert.ok(redacted.endsWith(' [REDACTED:stripe_key]'))
  })

  it('analyses a text once: the same text again is a cache hit', async () => {
    const step = await makeStep()
    const history = `earlier: ${stripeKey()} and ${hex(8)}`
    const turn = (n: number) =>
      makeExchange([
        { source: 'system', text: 'You are a helpful assistant.' },
        { source: 'user', text: history },
        ...Array.from({ length: n }, (_, i) => ({ source: 'user' as const, text: `message ${i}` })),
      ])
    step.onRequest(makeRequestContext(turn(1)))
    const afterFirst = step.scannedTexts
    assert.equal(afterFirst, 3)
    const ctx = makeRequestContext(turn(2))
    step.onRequest(ctx)
    assert.equal(step.scannedTexts, afterFirst + 1, 'only the new message is scanned')
    assert.equal(ctx.findings.length, 1, 'cached analysis still reports')
  })
})
