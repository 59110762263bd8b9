/**
 * PostgreSQL faults against the real server: backends terminated while calls
 * and appends are in flight (the process must survive, later work must
 * succeed), and a stalled database (a lock another session holds) that must
 * make appends fail fast with 503 `audit_unavailable` instead of hanging.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { GovError } from '@gov/core'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { AuditErrorCodes } from '../../src/audit/audit-errors.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { connectPostgres } from '../../src/storage/connect-postgres.js'
import { createStore } from '../../src/storage/create-store.js'
import { STORAGE_UNAVAILABLE } from '../../src/storage/outage-errors.js'
import { readSqlError } from '../../src/storage/sql-errors.js'
import type { Store } from '../../src/storage/store.js'
import { chatBody, onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import { callEntryOf } from '../audit/audit-fixtures.js'
import { dropSchema, skipWithoutDatabase, TEST_DATABASE_URL, uniqueSchema } from './postgres-schema.js'

const url = TEST_DATABASE_URL ?? ''

/** Run one statement on a connection of its own. */
async function query(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(sql, params)
  } finally {
    await client.end()
  }
}

/** Terminate every backend gov opened under `applicationName`; resolves with how many. */
async function terminate(applicationName: string): Promise<number> {
  const result = await query(
    'select count(*) filter (where pg_terminate_backend(pid)) as n from pg_stat_activity where application_name = $1',
    [applicationName],
  )
  return Number(result.rows[0].n)
}

/** A session holding the audit chain's lock of `schema`, as a stuck writer would. */
async function holdAuditLock(schema: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('select pg_advisory_lock(hashtext($1))', [`${schema}:gov.audit`])
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      await client.end()
    },
  }
}

/** The value or the error, so a rejection before anyone awaits it is not unhandled. */
function settle(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  )
}

async function rejectsUnavailable(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => assert.fail('expected audit_unavailable'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof GovError, String(error))
  assert.equal(error.code, AuditErrorCodes.UNAVAILABLE)
  assert.equal(error.status, 503)
}

/**
 * For a moment after a failed audit write gov refuses calls up front (it will
 * not pay the provider for an answer it could not record): call until that
 * hold is over, within a bound.
 */
async function callUntilServed<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  let res = await call()
  for (const until = Date.now() + 10_000; res.status === 503 && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    res = await call()
  }
  return res
}

describe('postgres store under faults', { skip: skipWithoutDatabase }, () => {
  const schemas: string[] = []
  const stores: Store[] = []
  const open = async (settings: Parameters<typeof createStore>[0] = {}) => {
    const schema = uniqueSchema('faults')
    schemas.push(schema)
    const applicationName = `gov-test-${randomBytes(4).toString('hex')}`
    const errors: Error[] = []
    const store = createStore({
      databaseUrl: url,
      schema,
      applicationName,
      onError: (e) => errors.push(e),
      ...settings,
    })
    stores.push(store)
    await store.init()
    return { store, schema, applicationName, errors }
  }

  after(async () => {
    for (const store of stores) await store.close()
    for (const schema of schemas) await dropSchema(url, schema)
  })

  it('survives backends terminated under load, idle or inside the audit transaction, and works after', async () => {
    const { store, applicationName, errors } = await open()
    const trail = new AuditTrail(store, { maxBatch: 5 })
    const work: Promise<unknown>[] = []
    let terminated = 0
    // Small batches keep a transaction open most of the time, so terminations land inside one.
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 40; i++) {
        work.push(settle(trail.append(callEntryOf({ status: i }))))
        work.push(settle(store.listAgents()))
      }
      await sleep(5)
      terminated += await terminate(applicationName)
    }
    const results = await Promise.all(work)
    assert.ok(terminated > 0, 'some of gov’s backends were terminated')
    for (const result of results) {
      if (result instanceof Error) {
        // Appends fail as audit_unavailable, reads as storage_unavailable: both 503, nothing uncoded.
        assert.ok(result instanceof GovError, String(result))
        assert.ok([AuditErrorCodes.UNAVAILABLE, STORAGE_UNAVAILABLE].includes(result.code), result.code)
        assert.equal(result.status, 503)
      }
    }
    assert.ok(errors.length > 0, 'connection errors went to onError instead of crashing the process')
    // Later work succeeds on fresh connections and the chain is whole.
    const record = await trail.append(callEntryOf())
    assert.ok(record.seq >= 1)
    assert.equal((await trail.verify()).valid, true)
    assert.ok(Array.isArray(await store.listPipelines()))
  })

  it('fails an append held up by a lock with 503 audit_unavailable, and recovers when it is released', async () => {
    const { store, schema } = await open({ statementTimeoutMs: 300 })
    const trail = new AuditTrail(store)
    await trail.append(callEntryOf())
    const lock = await holdAuditLock(schema)
    try {
      await rejectsUnavailable(trail.append(callEntryOf()))
      assert.throws(
        () => trail.assertWritable(),
        (e: unknown) => e instanceof GovError && e.code === AuditErrorCodes.UNAVAILABLE && e.status === 503,
        'right after a failed write the gateway can refuse before paying the provider',
      )
    } finally {
      await lock.release()
    }
    await trail.append(callEntryOf())
    assert.equal(trail.writable(), true, 'a successful write clears the failure')
    assert.equal((await trail.verify()).records, 2, 'the failed append wrote nothing')
  })

  it('undoes a management change whose audit record cannot be written, and keeps one that can', async () => {
    const { store, schema } = await open({ statementTimeoutMs: 300 })
    const trail = new AuditTrail(store)
    const input = { pipeline_id: 'atomic', preset: 'standard', overrides: {}, allow_flags: [] }
    const describe = () => ({ action: 'pipeline.create' as const, status: 201, pipelineId: 'atomic' })
    const lock = await holdAuditLock(schema)
    try {
      await rejectsUnavailable(trail.commit((tx) => tx.createPipeline(input), describe))
    } finally {
      await lock.release()
    }
    assert.equal(await store.getPipeline('atomic'), undefined, 'not done, since not recorded')
    const record = await trail.commit((tx) => tx.createPipeline(input), describe)
    assert.equal(record.version, 1)
    const [entry] = await store.listAudit({ order: 'desc', limit: 1 })
    assert.deepEqual([entry?.action, entry?.pipeline_id], ['pipeline.create', 'atomic'])
    assert.equal((await trail.verify()).valid, true)
  })

  it('reports a write stalled longer than stallMs through assertWritable while it is still in flight', async () => {
    const { store, schema } = await open({ statementTimeoutMs: 10_000 })
    const trail = new AuditTrail(store, { stallMs: 50, appendTimeoutMs: 10_000 })
    const lock = await holdAuditLock(schema)
    let append: Promise<unknown> | undefined
    try {
      assert.equal(trail.writable(), true)
      append = trail.append(callEntryOf())
      for (let i = 0; i < 200 && trail.writable(); i++) await sleep(10)
      assert.equal(trail.writable(), false, 'a stalled write makes the trail unwritable')
    } finally {
      await lock.release()
    }
    await append
    assert.equal(trail.writable(), true)
  })

  it('answers a read held up by a table lock with 503 storage_unavailable, and data errors as before', async () => {
    const { store, schema } = await open({ statementTimeoutMs: 300 })
    const locker = new pg.Client({ connectionString: url })
    await locker.connect()
    try {
      await locker.query('begin')
      await locker.query(`lock table "${schema}".agents in access exclusive mode`)
      const error = await store.listAgents().then(
        () => assert.fail('expected storage_unavailable'),
        (e: unknown) => e,
      )
      assert.ok(error instanceof GovError)
      assert.equal(error.code, STORAGE_UNAVAILABLE)
      assert.equal(error.status, 503)
    } finally {
      await locker.end()
    }
    assert.deepEqual(await store.listAgents(), [])
    const input = { pipeline_id: 'dup', preset: 'standard', overrides: {}, allow_flags: [] }
    await store.createPipeline(input)
    await assert.rejects(store.createPipeline(input), { code: 'conflict', status: 409 })
  })

  it('bounds a stalled statement (pg_sleep) by the statement timeout', async () => {
    const connection = connectPostgres({ url, statementTimeoutMs: 200, applicationName: 'gov-test-sleep' })
    try {
      // The server cancels it (SQLSTATE 57014 query_canceled) instead of the caller waiting 5 s.
      await assert.rejects(
        connection.db.execute(sql`select pg_sleep(5)`),
        (e: unknown) => readSqlError(e)?.code === '57014',
      )
    } finally {
      await connection.close()
    }
  })
})

describe('gateway on postgres under faults', { skip: skipWithoutDatabase }, () => {
  const schema = uniqueSchema('gwfaults')
  const applicationName = `gov-test-${randomBytes(4).toString('hex')}`
  let t: TestGateway
  let key: string

  before(async () => {
    t = await startTestGateway({
      env: {
        DATABASE_URL: url,
        GOV_DB_APPLICATION_NAME: applicationName,
        GOV_DB_STATEMENT_TIMEOUT_MS: '400',
      },
      start: { databaseSchema: schema },
    })
    // Let the start-up chains load their models first: a busy event loop is not what is tested here.
    for (let i = 0; i < 600 && (await fetch(`${t.url}/health/startup`)).status !== 200; i++) await sleep(50)
    await t.createPipeline('pf', 'standard', onlySteps('standard', { fx_pass: {} }))
    key = await t.createAgent('pf-agent', 'pf')
  })
  after(async () => {
    await t?.close()
    await dropSchema(url, schema)
  })

  it('keeps serving when its backends are terminated while calls are in flight', async () => {
    const calls: Promise<{ status: number }>[] = []
    let terminated = 0
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 15; i++)
        calls.push(t.call('/v1/chat/completions', chatBody(`hi ${round}.${i}`), { key }))
      await sleep(10)
      terminated += await terminate(applicationName)
    }
    const statuses = (await Promise.all(calls)).map((r) => r.status)
    assert.ok(terminated > 0)
    for (const status of statuses) assert.ok(status === 200 || status === 503, `status ${status}`)
    const later = await callUntilServed(() =>
      t.call('/v1/chat/completions', chatBody('after the storm'), { key }),
    )
    assert.equal(later.status, 200)
    assert.equal((await t.admin('GET', '/audit/verify')).body.valid, true)
  })

  it('answers 503 audit_unavailable while the audit trail is stalled, instead of waiting for the stall', async () => {
    const lock = await holdAuditLock(schema)
    // Released after 15 s whatever happens: without deadlines the call would wait for this and answer 200.
    const safety = setTimeout(() => void lock.release(), 15_000)
    try {
      const res = await t.call('/v1/chat/completions', chatBody('stalled'), { key })
      assert.equal(res.status, 503)
      assert.equal(res.body.error.code, 'audit_unavailable')
      assert.equal(res.headers.get('x-gov-token'), null)
    } finally {
      clearTimeout(safety)
      await lock.release()
    }
    const after = await callUntilServed(() => t.call('/v1/chat/completions', chatBody('unstalled'), { key }))
    assert.equal(after.status, 200)
  })

  it('refuses text PostgreSQL cannot store with 400, and answers a year-0 time range', async () => {
    const nul = await t.admin('POST', '/pipelines', {
      pipeline_id: 'pf-nul',
      preset: 'standard',
      overrides: { fx_block: { word: 'a\u0000b' } },
    })
    assert.equal(nul.status, 400)
    assert.equal(nul.body.error.code, 'invalid_request')
    const surrogate = await t.admin('POST', '/pipelines', {
      pipeline_id: 'pf-sur',
      preset: 'standard',
      overrides: { fx_block: { word: 'x\ud800' } },
    })
    assert.equal(surrogate.status, 400)
    const from = await t.admin('GET', '/audit?from=0000-01-01T00:00:00Z&limit=1000')
    assert.equal(from.status, 200)
    const all = await t.admin('GET', '/audit?limit=1000')
    assert.equal(from.body.records.length, all.body.records.length, 'from year 0 is everything')
    const to = await t.admin('GET', '/audit?to=0000-01-01T00:00:00Z')
    assert.equal(to.status, 200)
    assert.deepEqual(to.body.records, [])
    const late = await t.admin('GET', '/audit?to=9999-12-31T23:59:59-05:00')
    assert.equal(late.status, 200)
  })
})
