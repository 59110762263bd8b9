/**
 * One audit suite for every Store kind: round trip, filters, paging, verify;
 * and, for the SQL kinds, tampering directly in the database. Each kind's test
 * file calls these with its store, so memory, PGlite and PostgreSQL are held to
 * the same contract.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { it } from 'node:test'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import { sealRecords } from '../../src/audit/hash-chain.js'
import type { AuditRecord, Store } from '../../src/storage/store.js'
import { callEntryOf, type SqlExec } from './audit-fixtures.js'

/** Register the store-level audit tests in the current `describe`. */
export function describeAuditStore(getStore: () => Store): void {
  const tag = randomBytes(4).toString('hex')
  const trail = () => new AuditTrail(getStore())

  it('reads records back exactly as they were sealed, and the chain verifies', async () => {
    const t = trail()
    const written = await Promise.all([
      t.append(callEntryOf({ agent_id: `rt-${tag}` })),
      t.append(callEntryOf({ agent_id: `rt-${tag}`, session_id: null, token_id: 'tok-1', detail: {} })),
      t.append(
        callEntryOf({
          kind: 'admin',
          actor: 'admin:admin',
          action: 'pipeline.update',
          outcome: 'success',
          agent_id: `rt-${tag}`,
          classification: null,
          detail: { preset: 'strict', definition_sha256: 'cd'.repeat(32), created: false },
        }),
      ),
    ])
    const read = await t.list({ agentId: `rt-${tag}`, order: 'asc', limit: 10 })
    assert.deepEqual(
      read,
      [...written].sort((a, b) => a.seq - b.seq),
    )
    const result = await t.verify()
    assert.equal(result.valid, true)
    assert.equal(result.first_broken, undefined)
  })

  it('filters by agent, session, outcome, kind and time range', async () => {
    const t = trail()
    const agent = `f-${tag}`
    const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString()
    await t.append(callEntryOf({ agent_id: agent, session_id: 's1', outcome: 'allowed', time: at(0) }))
    await t.append(callEntryOf({ agent_id: agent, session_id: 's2', outcome: 'blocked', time: at(10) }))
    await t.append(callEntryOf({ agent_id: agent, session_id: 's1', outcome: 'observed', time: at(20) }))
    await t.append(
      callEntryOf({ agent_id: agent, kind: 'admin', outcome: 'success', session_id: null, time: at(30) }),
    )
    await t.append(callEntryOf({ agent_id: `other-${tag}`, session_id: 's1', time: at(15) }))
    const outcomes = async (query: Omit<Parameters<AuditTrail['list']>[0], 'order' | 'limit'>) =>
      (await t.list({ ...query, order: 'asc', limit: 100 })).map((r) => r.outcome)

    assert.deepEqual(await outcomes({ agentId: agent }), ['allowed', 'blocked', 'observed', 'success'])
    assert.deepEqual(await outcomes({ agentId: agent, sessionId: 's1' }), ['allowed', 'observed'])
    assert.deepEqual(await outcomes({ agentId: agent, outcome: 'blocked' }), ['blocked'])
    assert.deepEqual(await outcomes({ agentId: agent, kind: 'admin' }), ['success'])
    assert.deepEqual(await outcomes({ agentId: agent, from: at(10), to: at(30) }), ['blocked', 'observed'])
    assert.deepEqual(await outcomes({ agentId: agent, from: at(20) }), ['observed', 'success'])
    assert.deepEqual(await outcomes({ agentId: agent, to: at(10) }), ['allowed'])
  })

  it('pages by seq in both directions', async () => {
    const t = trail()
    const agent = `pg-${tag}`
    const written = await Promise.all(
      Array.from({ length: 7 }, () => t.append(callEntryOf({ agent_id: agent }))),
    )
    const seqs = written.map((r) => r.seq).sort((a, b) => a - b)

    const asc: number[] = []
    let afterSeq: number | undefined
    for (;;) {
      const page = await t.list({ agentId: agent, order: 'asc', limit: 3, ...(afterSeq ? { afterSeq } : {}) })
      asc.push(...page.map((r) => r.seq))
      if (page.length < 3) break
      afterSeq = page.at(-1)!.seq
    }
    assert.deepEqual(asc, seqs)

    const newest = await t.list({ agentId: agent, order: 'desc', limit: 3 })
    assert.deepEqual(
      newest.map((r) => r.seq),
      seqs.slice(-3).reverse(),
    )
    const older = await t.list({ agentId: agent, order: 'desc', limit: 3, beforeSeq: newest.at(-1)!.seq })
    assert.deepEqual(
      older.map((r) => r.seq),
      seqs.slice(-6, -3).reverse(),
    )
  })
}

/** How a SQL kind is opened on a schema, and how its tables are reached behind its back. */
export interface TamperTarget {
  open(schema: string): Promise<Store>
  exec: SqlExec
  /** A fresh schema name for one scenario. */
  schema(label: string): string
}

/**
 * Register the tampering scenarios: each builds a chain of 6 records in its own
 * schema, changes the table with plain SQL while no store is open, reopens and
 * expects the named first broken record.
 */
export function describeTamperDetection(target: TamperTarget): void {
  async function scenario(
    label: string,
    tamper: (records: AuditRecord[]) => string[],
    expect: (records: AuditRecord[]) => { seq: number; id: string; reason: string },
  ) {
    const schema = target.schema(label)
    let store = await target.open(schema)
    let records: AuditRecord[]
    try {
      const trail = new AuditTrail(store)
      for (let i = 1; i <= 6; i++)
        await trail.append(callEntryOf({ outcome: i === 3 ? 'blocked' : 'allowed' }))
      records = await trail.list({ order: 'asc', limit: 10 })
      assert.equal((await trail.verify()).valid, true)
    } finally {
      await store.close()
    }
    await target.exec(schema, tamper(records))
    store = await target.open(schema)
    try {
      const result = await new AuditTrail(store).verify()
      assert.equal(result.valid, false)
      assert.deepEqual(result.first_broken, expect(records))
    } finally {
      await store.close()
    }
  }

  it('detects an edited column (outcome of record 3)', async () => {
    await scenario(
      'edit',
      () => [`update audit_records set outcome = 'allowed' where seq = 3`],
      (r) => ({ seq: 3, id: r[2]!.id, reason: 'hash_mismatch' }),
    )
  })

  it('detects an edit inside the jsonb detail (findings of record 4)', async () => {
    await scenario(
      'editjson',
      () => [`update audit_records set detail = jsonb_set(detail, '{findings}', '[]') where seq = 4`],
      (r) => ({ seq: 4, id: r[3]!.id, reason: 'hash_mismatch' }),
    )
  })

  it('detects a deleted row (record 3): the record after it breaks', async () => {
    await scenario(
      'delete',
      () => [`delete from audit_records where seq = 3`],
      (r) => ({ seq: 4, id: r[3]!.id, reason: 'seq_gap' }),
    )
  })

  it('detects a row inserted in the middle, even one forged with the right formula', async () => {
    let forgedId = ''
    await scenario(
      'insert',
      (r) => {
        const [forged] = sealRecords({ seq: 3, hash: r[2]!.hash }, [callEntryOf()])
        forgedId = forged!.id
        return [
          // Make room at seq 4 (two steps: the primary key is checked row by row).
          `update audit_records set seq = -seq where seq >= 4`,
          `update audit_records set seq = 1 - seq where seq < 0`,
          insertStatement(forged!),
        ]
      },
      (r) => ({ seq: 5, id: r[3]!.id, reason: 'prev_hash_mismatch' }),
    )
    assert.ok(forgedId)
  })

  it('detects a row appended with a made-up link', async () => {
    let forgedId = ''
    await scenario(
      'append',
      () => {
        const [forged] = sealRecords({ seq: 6, hash: 'e'.repeat(64) }, [callEntryOf()])
        forgedId = forged!.id
        return [insertStatement(forged!)]
      },
      () => ({ seq: 7, id: forgedId, reason: 'prev_hash_mismatch' }),
    )
  })

  it('detects two records swapped (seq 2 and 5)', async () => {
    await scenario(
      'swap',
      () => [
        `update audit_records set seq = -1 where seq = 2`,
        `update audit_records set seq = 2 where seq = 5`,
        `update audit_records set seq = 5 where seq = -1`,
      ],
      (r) => ({ seq: 2, id: r[4]!.id, reason: 'prev_hash_mismatch' }),
    )
  })
}

/** An INSERT of a whole record, as someone with database access would write it. */
export function insertStatement(r: AuditRecord): string {
  const text = (v: string | null) => (v === null ? 'null' : `'${v.replaceAll("'", "''")}'`)
  const num = (v: number | null) => (v === null ? 'null' : String(v))
  return `insert into audit_records (seq, id, time, kind, actor, action, outcome, status, agent_id, session_id,
      pipeline_id, pipeline_version, request_id, token_id, classification, detail, prev_hash, hash)
    values (${r.seq}, ${text(r.id)}, ${text(r.time)}, ${text(r.kind)}, ${text(r.actor)}, ${text(r.action)},
      ${text(r.outcome)}, ${r.status}, ${text(r.agent_id)}, ${text(r.session_id)}, ${text(r.pipeline_id)},
      ${num(r.pipeline_version)}, ${text(r.request_id)}, ${text(r.token_id)}, ${text(r.classification)},
      ${text(JSON.stringify(r.detail))}::jsonb, ${text(r.prev_hash)}, ${text(r.hash)})`
}
