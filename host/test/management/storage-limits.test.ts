/**
 * Bad input and failures on the admin side, on the embedded (memory) store:
 * text PostgreSQL could not hold is refused the same way here, a 500 is logged
 * with its cause, YAML warnings go through the JSON logger, and the memory
 * audit cap shows in `/health`.
 */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { TOKENS } from '../../src/container.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AgentRecord } from '../../src/storage/store.js'
import { startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'

/** A log destination that keeps every JSON line. */
function captureLog() {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { stream, lines }
}

/** A memory store whose agent listing breaks as a driver would: an unexpected, uncoded error. */
class BrokenListStore extends MemoryStore {
  override async listAgents(): Promise<AgentRecord[]> {
    throw new TypeError('driver exploded while listing agents')
  }
}

describe('admin input and failures on the memory store', () => {
  let t: TestGateway
  const log = captureLog()

  before(async () => {
    t = await startTestGateway({
      env: { LOG_LEVEL: 'warn' },
      start: {
        logDestination: log.stream,
        override: (c) => c.register(TOKENS.Store, { useValue: new BrokenListStore({ auditMax: 3 }) }),
      },
    })
  })
  after(() => t.close())

  it('refuses NUL and lone surrogates in pipeline settings with 400, as PostgreSQL would', async () => {
    for (const overrides of [
      { fx_block: { word: 'a\u0000b' } },
      { fx_block: { 'we\u0000rd': 'x' } },
      { fx_block: { word: ['ok', '\udc00'] } },
    ]) {
      const res = await t.admin('POST', '/pipelines', { pipeline_id: 'nul', preset: 'standard', overrides })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'invalid_request')
    }
    assert.equal((await t.admin('GET', '/pipelines/nul')).status, 404, 'nothing was stored')
    const fine = await t.admin('POST', '/pipelines', {
      pipeline_id: 'ok-text',
      preset: 'standard',
      overrides: { fx_block: { word: 'naïve 😀' } },
    })
    assert.equal(fine.status, 201, 'paired surrogates (emoji) are fine')
    const update = await t.admin('PUT', '/pipelines/ok-text', {
      preset: 'standard',
      overrides: { fx_block: { word: '\u0000' } },
    })
    assert.equal(update.status, 400)
  })

  it('logs a 500 with its cause while the answer says only internal_error', async () => {
    const res = await t.admin('GET', '/agents')
    assert.equal(res.status, 500)
    assert.equal(res.body.error.code, 'internal_error')
    assert.ok(!res.text.includes('driver exploded'), 'the cause stays in the log')
    const line = log.lines.find((l) => l.code === 'internal_error')
    assert.ok(line, 'a log line for the 500')
    assert.equal(line.level, 50)
    assert.equal(line.path, '/agents')
    assert.match(JSON.stringify(line.err), /driver exploded/)
  })

  it('sends YAML warnings of an imported definition through the JSON logger', async () => {
    const res = await t.admin(
      'POST',
      '/pipelines/import',
      'pipeline:\n  pipeline_id: yaml-warn\n  preset: standard\n  description: !!custom hello\n',
      { contentType: 'application/yaml' },
    )
    assert.equal(res.status, 201)
    assert.equal(res.body.warnings[0].code, 'TAG_RESOLVE_FAILED')
    const line = log.lines.find((l) => l.msg === 'pipeline definition has YAML warnings')
    assert.ok(line)
    assert.equal(line.pipeline, 'yaml-warn')
  })

  it('warns in /health once the memory store dropped audit records, keeping the spec’d fields', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await t.admin('POST', '/pipelines', { pipeline_id: `cap-${i}`, preset: 'standard' })
      assert.equal(res.status, 201)
    }
    const res = await fetch(`${t.url}/health`)
    const body = (await res.json()) as Record<string, unknown>
    assert.equal(res.status, 200)
    assert.equal(body.status, 'healthy')
    assert.equal(body.storage, 'memory')
    assert.equal(typeof body.version, 'string')
    assert.ok((body.warnings as string[]).some((w) => w.startsWith('audit_records_dropped')))
    const verified = await t.admin('GET', '/audit/verify')
    assert.equal(verified.body.valid, true)
  })
})
