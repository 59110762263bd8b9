import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import canonicalize from 'canonicalize'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { GENESIS_HASH } from '../../src/audit/hash-chain.js'
import { TOKENS } from '../../src/container.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditHead, AuditRecord } from '../../src/storage/store.js'
import { chatBody, onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

const chat = chatBody
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Prompt texts that must never appear in the trail (the mock provider echoes them into answers too). */
const PROMPTS = {
  allowed: 'hello, my card is 4111 1111 1111 1111 zq-allowed-7f3a',
  blocked: 'this is forbidden text zq-blocked-9c1d',
  observed: 'forbidden but only observed zq-observed-2b8e',
  error: 'boom goes the step zq-error-5e6f',
}

describe('audit trail through the gateway', () => {
  let t: TestGateway
  const keys: Record<string, string> = {}
  const answers: Record<string, Awaited<ReturnType<TestGateway['call']>>> = {}

  before(async () => {
    t = await startTestGateway({ env: { GOV_AUDITOR_API_KEY: 'test-auditor-key' } })
    await t.createPipeline('aud', 'standard', onlySteps('standard', { fx_block: {} }))
    await t.createPipeline('aud-observe', 'observe', onlySteps('observe', { fx_block: {} }))
    await t.createPipeline('aud-throw', 'standard', onlySteps('standard', { fx_throw: {} }))
    keys.a = await t.createAgent('audit-a', 'aud')
    keys.o = await t.createAgent('audit-o', 'aud-observe')
    keys.e = await t.createAgent('audit-e', 'aud-throw')
    const send = (key: string, text: string, session: string) =>
      t.call('/v1/chat/completions', chat(text), { key, headers: { 'x-gov-session': session } })
    answers.allowed = await send(keys.a, PROMPTS.allowed, 'sess-1')
    answers.blocked = await send(keys.a, PROMPTS.blocked, 'sess-2')
    answers.observed = await send(keys.o, PROMPTS.observed, 'sess-1')
    answers.error = await send(keys.e, PROMPTS.error, 'sess-3')
  })
  after(() => t.close())

  /** Every record, oldest first, paging through `GET /audit` as an export would. */
  async function exportAll(): Promise<AuditRecord[]> {
    const records: AuditRecord[] = []
    let cursor: string | null = null
    do {
      const page = await t.admin('GET', `/audit?order=asc&limit=5${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(page.status, 200)
      records.push(...page.body.records)
      cursor = page.body.next_cursor
    } while (cursor)
    return records
  }

  const callOf = async (agent: string, outcome: string) => {
    const res = await t.admin('GET', `/audit?agent_id=${agent}&outcome=${outcome}&kind=call`)
    assert.equal(res.status, 200)
    assert.equal(res.body.records.length, 1, `one ${outcome} call of ${agent}`)
    return res.body.records[0] as AuditRecord
  }

  it('records an allowed call with its decisions and the hash of the body, not the text', async () => {
    assert.equal(answers.allowed!.status, 200)
    const record = await callOf('audit-a', 'allowed')
    assert.equal(record.kind, 'call')
    assert.equal(record.actor, 'agent:audit-a')
    assert.equal(record.action, 'gateway.call')
    assert.equal(record.status, 200)
    assert.equal(record.session_id, 'sess-1')
    assert.equal(record.pipeline_id, 'aud')
    assert.equal(record.pipeline_version, 1)
    assert.equal(record.request_id, answers.allowed!.headers.get('x-request-id'))
    assert.equal(record.classification, 'public')
    const detail = record.detail as Record<string, unknown>
    assert.equal(detail.request_sha256, sha256(JSON.stringify(chat(PROMPTS.allowed))))
    assert.equal(detail.vendor, 'openai')
    assert.equal(detail.model, 'gpt-4o-mini')
    assert.equal(detail.mode, 'enforce')
    assert.deepEqual(detail.findings, [])
    assert.ok(Array.isArray(detail.decisions) && detail.decisions.length > 0)
    const token = answers.allowed!.headers.get('x-gov-token')
    const jti = token ? JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti : null
    assert.equal(record.token_id, jti, 'the token id of the minted capability token, or null without one')
  })

  it('records a blocked call with the step, its code and the finding counts', async () => {
    assert.equal(answers.blocked!.status, 403)
    const record = await callOf('audit-a', 'blocked')
    assert.equal(record.status, 403)
    assert.equal(record.session_id, 'sess-2')
    assert.equal(record.classification, 'confidential')
    const detail = record.detail as { decisions: Record<string, unknown>[]; findings: unknown[] }
    assert.deepEqual(
      detail.decisions.find((d) => d.verdict === 'block'),
      {
        step: 'fx_block',
        phase: 'request',
        verdict: 'block',
        code: 'fx_word_found',
        enforced: true,
        error: false,
        ms: detail.decisions.find((d) => d.verdict === 'block')!.ms,
      },
    )
    assert.deepEqual(detail.findings, [
      { step: 'fx_block', phase: 'request', type: 'fx_word', level: 'confidential', count: 1 },
    ])
  })

  it('records a call that observe mode let through as observed', async () => {
    assert.equal(answers.observed!.status, 200)
    const record = await callOf('audit-o', 'observed')
    assert.equal((record.detail as { mode: string }).mode, 'observe')
    const decisions = (record.detail as { decisions: Record<string, unknown>[] }).decisions
    assert.ok(decisions.some((d) => d.verdict === 'block' && d.enforced === false))
  })

  it('records a failed call as error, without the step’s error message', async () => {
    assert.equal(answers.error!.status, 500)
    const record = await callOf('audit-e', 'error')
    assert.equal(record.status, 500)
    const decisions = (record.detail as { decisions: Record<string, unknown>[] }).decisions
    assert.ok(decisions.some((d) => d.error === true && d.code === 'GOV_ERR_STEP_FAILED'))
    assert.doesNotMatch(JSON.stringify(record), /step exploded/)
  })

  it('records a call that never authenticated as anonymous', async () => {
    const res = await t.call('/v1/chat/completions', chat('who am i'), { key: 'not-a-key' })
    assert.equal(res.status, 401)
    const found = await t.admin('GET', '/audit?limit=1')
    const record = found.body.records[0] as AuditRecord
    assert.equal(record.actor, 'anonymous')
    assert.equal(record.agent_id, null)
    assert.equal(record.outcome, 'blocked')
    assert.equal(record.request_id, res.headers.get('x-request-id'))
  })

  it('never stores prompt or answer text', async () => {
    const all = JSON.stringify(await exportAll())
    for (const prompt of Object.values(PROMPTS)) {
      assert.ok(!all.includes(prompt), `the trail holds "${prompt}"`)
      for (const word of prompt.split(' ').filter((w) => w.startsWith('zq-'))) assert.ok(!all.includes(word))
    }
    // The card number in any form: random hex (hashes, ids) may well contain "4111" by chance.
    assert.ok(!all.includes('4111 1111') && !all.includes('4111111111111111'))
  })

  it('records management changes with their targets, never key material', async () => {
    await t.admin('PUT', '/pipelines/aud', { preset: 'standard', overrides: onlySteps('standard', {}) })
    await t.admin('PUT', '/pipelines/aud-observe/assign/audit-e')
    const imported = await t.admin(
      'POST',
      '/pipelines/import',
      'version: 1\npipeline:\n  pipeline_id: aud-imported\n  preset: strict\n',
      { contentType: 'application/yaml' },
    )
    assert.equal(imported.status, 201)
    const rotated = await t.admin('POST', '/agents/audit-o/rotate-key')
    assert.equal(rotated.status, 200)
    assert.equal((await t.admin('DELETE', '/agents/audit-e')).status, 204)
    assert.equal((await t.admin('DELETE', '/pipelines/aud-throw')).status, 204)
    assert.equal((await t.admin('POST', '/admin/secrets/invalidate?name=OPENAI_API_KEY')).status, 200)
    const keyRotation = await t.admin('POST', '/admin/tokens/rotate')
    assert.equal(keyRotation.status, 200)

    const res = await t.admin('GET', '/audit?kind=admin&order=asc&limit=100')
    const changes = (res.body.records as AuditRecord[]).map((r) => [
      r.action,
      r.pipeline_id,
      r.agent_id,
      r.outcome,
      r.actor,
    ])
    assert.deepEqual(changes, [
      ['pipeline.create', 'aud', null, 'success', 'admin:admin'],
      ['pipeline.create', 'aud-observe', null, 'success', 'admin:admin'],
      ['pipeline.create', 'aud-throw', null, 'success', 'admin:admin'],
      ['agent.create', 'aud', 'audit-a', 'success', 'admin:admin'],
      ['agent.create', 'aud-observe', 'audit-o', 'success', 'admin:admin'],
      ['agent.create', 'aud-throw', 'audit-e', 'success', 'admin:admin'],
      ['pipeline.update', 'aud', null, 'success', 'admin:admin'],
      ['pipeline.assign', 'aud-observe', 'audit-e', 'success', 'admin:admin'],
      ['pipeline.import', 'aud-imported', null, 'success', 'admin:admin'],
      ['agent.rotate_key', 'aud-observe', 'audit-o', 'success', 'admin:admin'],
      ['agent.delete', null, 'audit-e', 'success', 'admin:admin'],
      ['pipeline.delete', 'aud-throw', null, 'success', 'admin:admin'],
      ['secret.invalidate', null, null, 'success', 'admin:admin'],
      ['token_key.rotate', null, null, 'success', 'admin:admin'],
    ])
    const records = res.body.records as AuditRecord[]
    assert.deepEqual(records.find((r) => r.action === 'secret.invalidate')!.detail, {
      secret_name: 'OPENAI_API_KEY',
    })
    assert.equal(records.find((r) => r.action === 'token_key.rotate')!.detail.kid, keyRotation.body.kid)
    const update = (res.body.records as AuditRecord[]).find((r) => r.action === 'pipeline.update')!
    assert.equal(update.pipeline_version, 2)
    assert.match(String(update.detail.definition_sha256), /^[0-9a-f]{64}$/)
    const text = JSON.stringify(res.body.records)
    assert.ok(!text.includes(rotated.body.api_key), 'the new key is not in the trail')
    assert.ok(!text.includes(keys.a!), 'agent keys are not in the trail')
    assert.ok(!text.includes(rotated.body.key_prefix), 'not even the key prefix')
  })

  it('filters by agent, session, outcome and time range, and pages with a cursor', async () => {
    const session = await t.admin('GET', '/audit?session_id=sess-1&order=asc')
    assert.deepEqual(
      (session.body.records as AuditRecord[]).map((r) => [r.agent_id, r.outcome]),
      [
        ['audit-a', 'allowed'],
        ['audit-o', 'observed'],
      ],
    )
    const blocked = await t.admin('GET', '/audit?outcome=blocked&agent_id=audit-a')
    assert.deepEqual(
      (blocked.body.records as AuditRecord[]).map((r) => r.session_id),
      ['sess-2'],
    )

    const all = await exportAll()
    const pivot = all.find((r) => r.outcome === 'observed')!
    const since = await t.admin('GET', `/audit?order=asc&limit=1000&from=${encodeURIComponent(pivot.time)}`)
    assert.ok((since.body.records as AuditRecord[]).every((r) => r.time >= pivot.time))
    assert.ok((since.body.records as AuditRecord[]).some((r) => r.id === pivot.id))
    const until = await t.admin('GET', `/audit?order=asc&limit=1000&to=${encodeURIComponent(pivot.time)}`)
    assert.ok((until.body.records as AuditRecord[]).every((r) => r.time < pivot.time))
    assert.equal(
      (since.body.records.length as number) + (until.body.records.length as number),
      all.length,
      'from and to split the trail',
    )

    // Newest first by default; next_cursor walks back to the first record.
    const newest: number[] = []
    let cursor: string | null = null
    do {
      const page = await t.admin('GET', `/audit?limit=4${cursor ? `&cursor=${cursor}` : ''}`)
      newest.push(...(page.body.records as AuditRecord[]).map((r) => r.seq))
      cursor = page.body.next_cursor
    } while (cursor)
    assert.deepEqual(newest, all.map((r) => r.seq).reverse())
  })

  it('refuses bad query parameters with 400 invalid_request', async () => {
    for (const query of [
      'agent=audit-a',
      'outcome=maybe',
      'kind=other',
      'limit=0',
      'limit=1001',
      'limit=abc',
      'from=yesterday',
      'to=2026-13-45T00:00:00Z',
      'order=up',
      'cursor=-1',
      'limit=1&limit=2',
    ]) {
      const res = await t.admin('GET', `/audit?${query}`)
      assert.equal(res.status, 400, query)
      assert.equal(res.body.error.code, 'invalid_request', query)
    }
  })

  it('verifies the chain, and the export re-computes offline with the documented formula', async () => {
    const records = await exportAll()
    const verified = await t.admin('GET', '/audit/verify')
    assert.equal(verified.status, 200)
    assert.deepEqual(verified.body, {
      valid: true,
      records: records.length,
      head: { seq: records.length, hash: records.at(-1)!.hash },
      // No checkpoint signed yet (the interval has not passed): the chain alone covers every record.
      checkpoints: { checked: 0, verified: 0, key_retired: 0, last_verified_seq: null },
      unsigned_records: records.length,
    })
    // What an auditor does with an export and no gov code: JCS, SHA-256, link check.
    let prev = GENESIS_HASH
    records.forEach((record, i) => {
      const { hash, ...content } = record
      assert.equal(record.seq, i + 1)
      assert.equal(record.prev_hash, prev)
      assert.equal(createHash('sha256').update(canonicalize(content)!).digest('hex'), hash)
      prev = hash
    })
  })

  it('is for admin credentials only', async () => {
    for (const path of ['/audit', '/audit/verify', '/audit/export', '/audit/checkpoints']) {
      const none = await t.admin('GET', path, undefined, { key: null })
      assert.equal(none.status, 401, path)
      assert.equal(none.body.error.code, 'unauthorized')
      const wrong = await t.admin('GET', path, undefined, { key: 'wrong-key' })
      assert.equal(wrong.status, 401, path)
      const agent = await t.admin('GET', path, undefined, { key: keys.a! })
      assert.equal(agent.status, 403, path)
      assert.equal(agent.body.error.code, 'forbidden')
      const auditor = await t.admin('GET', path, undefined, { key: 'test-auditor-key' })
      assert.equal(auditor.status, 200, `${path}: the read-only auditor key reads the trail`)
    }
    // Signing a checkpoint attests the head and changes nothing else: Cedar's `audit` action, the auditor's too.
    assert.equal((await t.admin('POST', '/audit/checkpoints', undefined, { key: keys.a! })).status, 403)
    const signed = await t.admin('POST', '/audit/checkpoints', undefined, { key: 'test-auditor-key' })
    assert.equal(signed.status, 201, signed.text)
  })
})

/** A memory store whose audit appends fail while `failing` is set. */
class FlakyAuditStore extends MemoryStore {
  failing = false

  override async appendAudit(seal: (head: AuditHead | undefined) => AuditRecord[]): Promise<AuditRecord[]> {
    if (this.failing) throw new Error('connection refused')
    return super.appendAudit(seal)
  }
}

/**
 * Right after a failed audit write gov refuses calls up front for a moment
 * (it will not pay the provider for an answer it cannot record): call until
 * that hold is over, within a bound.
 */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
async function untilRecorded(call: () => Promise<{ status: number; body: any }>) {
  const until = Date.now() + 10_000
  for (;;) {
    const res = await call()
    if (res.status !== 503 || res.body?.error?.code !== 'audit_unavailable' || Date.now() > until) return res
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('audit trail down: fail closed', () => {
  let t: TestGateway
  let key: string
  const flaky = new FlakyAuditStore()

  before(async () => {
    t = await startTestGateway({
      start: {
        // One store for the services and the trail, as in production: a change and its record share a transaction.
        override: (c) => {
          c.register(TOKENS.Store, { useValue: flaky })
          c.register(TOKENS.Audit, { useValue: new AuditTrail(flaky) })
        },
      },
    })
    await t.createPipeline('fc', 'standard', onlySteps('standard', { fx_pass: {} }))
    key = await t.createAgent('fc-agent', 'fc')
    flaky.failing = true
  })
  after(() => t.close())

  it('answers 503 audit_unavailable instead of an unrecorded answer, in the vendor’s format', async () => {
    const upstreamBefore = t.mock.requests.length
    const res = await t.call('/v1/chat/completions', chat('fail closed please'), { key })
    assert.equal(res.status, 503)
    assert.equal(res.body.error.code, 'audit_unavailable')
    assert.equal(res.headers.get('x-gov-token'), null, 'no capability token for an unrecorded call')
    assert.ok(!res.text.includes('fail closed please'), 'the answer is withheld')
    assert.equal(
      t.mock.requests.length,
      upstreamBefore + 1,
      'the provider was called; its answer is withheld',
    )

    const upstreamAfter = t.mock.requests.length
    const messages = await t.call(
      '/v1/messages',
      { model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      { key },
    )
    assert.equal(messages.status, 503)
    assert.equal(
      t.mock.requests.length,
      upstreamAfter,
      'right after a failed audit write gov does not pay the provider for an answer it would withhold',
    )
    assert.equal(messages.body.type, 'error')
    assert.equal(messages.body.error.code, 'audit_unavailable')
  })

  it('answers a management change 503 audit_unavailable and undoes it: never done unrecorded', async () => {
    const res = await t.admin('POST', '/pipelines', { pipeline_id: 'fc-2', preset: 'standard' })
    assert.equal(res.status, 503)
    assert.equal(res.body.error.code, 'audit_unavailable')
    assert.equal((await t.admin('GET', '/pipelines/fc-2')).status, 404)
    const removed = await t.admin('DELETE', '/agents/fc-agent')
    assert.equal(removed.status, 503)
    assert.equal((await t.admin('GET', '/agents/fc-agent')).status, 200, 'the agent is still there')
    const rotated = await t.admin('POST', '/agents/fc-agent/rotate-key')
    assert.equal(rotated.status, 503)
    flaky.failing = false
    const call = await untilRecorded(() =>
      t.call('/v1/chat/completions', chat('old key still works'), { key }),
    )
    assert.equal(call.status, 200, 'the failed rotation left the old key in place')
    flaky.failing = true
  })

  it('records again once the store is back', async () => {
    flaky.failing = false
    const res = await untilRecorded(() => t.call('/v1/chat/completions', chat('back again'), { key }))
    assert.equal(res.status, 200)
    const verified = await t.admin('GET', '/audit/verify')
    assert.equal(verified.body.valid, true)
  })
})
