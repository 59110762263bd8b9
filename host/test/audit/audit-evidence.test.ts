/**
 * Audit evidence through a running gateway, on the memory store and on
 * PostgreSQL: signed checkpoints (on demand, stored once per head, verifiable
 * with the published JWKS), `GET /audit/export` paging from a cursor, and the
 * offline verification of an export, intact and tampered with.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { AuditTrail } from '../../src/audit/audit-trail.js'
import { checkpointKeys, verifyCheckpointSignature } from '../../src/audit/checkpoint.js'
import { hashRecord } from '../../src/audit/hash-chain.js'
import { verifyExportFile } from '../../src/audit/offline-verify.js'
import { TOKENS } from '../../src/container.js'
import type { AuditRecord } from '../../src/storage/store.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '../../src/testing/test-gateway.js'
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../storage/postgres-schema.js'
import { callEntryOf } from './audit-fixtures.js'

interface ExportPage {
  lines: Record<string, unknown>[]
  end: { type: 'end'; next_cursor: string; records: number; checkpoints: number; more: boolean }
  text: string
}

async function exportPage(url: string, query: string): Promise<ExportPage> {
  const res = await fetch(`${url}/audit/export?${query}`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
  })
  const text = await res.text()
  assert.equal(res.status, 200, text)
  assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/)
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const end = lines.pop() as unknown as ExportPage['end']
  assert.equal(end.type, 'end', 'the last line is the end line')
  return { lines, end, text }
}

const kinds = [{ kind: 'memory' }, ...(TEST_DATABASE_URL ? [{ kind: 'postgres' }] : [])] as const

for (const { kind } of kinds) {
  describe(`audit evidence (${kind})`, () => {
    let mock: MockProvider
    let gw: TestGateway
    let schema: string | undefined
    let dir: string
    let audit: AuditTrail

    before(async () => {
      mock = await startMockProvider()
      dir = mkdtempSync(join(tmpdir(), 'gov-evidence-'))
      const env: NodeJS.ProcessEnv = { GOV_AUDIT_CHECKPOINT_INTERVAL_S: '0' }
      if (kind === 'postgres') {
        schema = uniqueSchema('evidence')
        env.DATABASE_URL = TEST_DATABASE_URL
      }
      gw = await startTestGateway({ mock, env, ...(schema ? { start: { databaseSchema: schema } } : {}) })
      audit = gw.gateway.container.resolve<AuditTrail>(TOKENS.Audit)
    })

    after(async () => {
      await gw?.close()
      await mock?.close()
      if (schema) await dropSchema(TEST_DATABASE_URL!, schema)
      rmSync(dir, { recursive: true, force: true })
    })

    const append = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => audit.append(callEntryOf({ status: 200 + (i % 3) }))))

    it('refuses a checkpoint of an empty chain, then signs the head once', async () => {
      const empty = await gw.admin('POST', '/audit/checkpoints')
      assert.equal(empty.status, 409)
      assert.equal(empty.body.error.code, 'audit_empty')

      await append(5)
      const first = await gw.admin('POST', '/audit/checkpoints')
      assert.equal(first.status, 201, first.text)
      assert.equal(first.body.created, true)
      const checkpoint = first.body.checkpoint
      assert.equal(checkpoint.seq, 5)

      const again = await gw.admin('POST', '/audit/checkpoints')
      assert.equal(again.status, 200)
      assert.equal(again.body.created, false, 'the head is checkpointed already: nothing new is signed')
      assert.equal(again.body.checkpoint.jws, checkpoint.jws)

      const jwks = (await gw.admin('GET', '/.well-known/jwks.json', undefined, { key: null })).body
      const check = await verifyCheckpointSignature(checkpoint.jws, checkpointKeys(jwks))
      assert.ok(check.valid, JSON.stringify(check))
      assert.equal(check.payload.seq, 5)
      assert.equal(check.payload.count, 5)
      assert.equal(check.payload.hash, checkpoint.hash)
      assert.equal(check.payload.iss, 'gov')

      const listed = await gw.admin('GET', '/audit/checkpoints')
      assert.equal(listed.status, 200)
      assert.deepEqual(
        listed.body.checkpoints.map((c: { seq: number }) => c.seq),
        [5],
      )
      assert.equal((await gw.admin('GET', '/audit/checkpoints?limit=0')).status, 400)
      assert.equal((await gw.admin('GET', '/audit/checkpoints?bogus=1')).status, 400)
      assert.equal((await gw.admin('POST', '/audit/checkpoints', undefined, { key: 'wrong' })).status, 401)
    })

    it('a checkpoint cannot pass for a capability token', async () => {
      const { body } = await gw.admin('GET', '/audit/checkpoints')
      const verified = await gw.admin('POST', '/v1/tokens/verify', { token: body.checkpoints[0].jws })
      assert.equal(verified.status, 200)
      assert.equal(verified.body.valid, false)
    })

    it('exports every record exactly once across cursor pages, checkpoints after their record', async () => {
      await append(60)
      assert.equal((await gw.admin('POST', '/audit/checkpoints')).status, 201)
      await append(40)
      assert.equal((await gw.admin('POST', '/audit/checkpoints')).status, 201)
      await append(7)
      const total = 5 + 60 + 40 + 7

      const seen: number[] = []
      const checkpoints: number[] = []
      let cursor = '0'
      let pages = 0
      for (;;) {
        const page = await exportPage(gw.url, `after=${cursor}&limit=13`)
        pages += 1
        let previous = Number(cursor)
        for (const line of page.lines) {
          if (line.type === 'checkpoint') {
            const c = line.checkpoint as { seq: number }
            assert.equal(c.seq, previous, 'a checkpoint follows the record it signed')
            checkpoints.push(c.seq)
          } else {
            assert.equal(line.type, undefined, 'records are bare lines')
            previous = line.seq as number
            seen.push(previous)
          }
        }
        assert.equal(page.end.records, page.lines.filter((l) => l.type === undefined).length)
        cursor = page.end.next_cursor
        if (!page.end.more) break
        assert.ok(pages < 50, 'paging ends')
      }
      assert.deepEqual(
        seen,
        Array.from({ length: total }, (_, i) => i + 1),
        'each record once, in chain order',
      )
      assert.deepEqual(checkpoints, [5, 65, 105])
      assert.equal(pages, Math.ceil(total / 13))
      assert.equal(cursor, String(total))

      // Nothing new: the cursor stays where it is.
      const idle = await exportPage(gw.url, `after=${total}`)
      assert.equal(idle.lines.length, 0)
      assert.deepEqual(
        { next: idle.end.next_cursor, more: idle.end.more },
        { next: String(total), more: false },
      )
      // Exactly `limit` left: more is false, not a guess.
      const exact = await exportPage(gw.url, `after=${total - 4}&limit=4`)
      assert.equal(exact.end.records, 4)
      assert.equal(exact.end.more, false)
    })

    it('exports OCSF-shaped API Activity events', async () => {
      const page = await exportPage(gw.url, 'after=0&limit=3&format=ocsf')
      assert.equal(page.lines.length, 3, 'records only; checkpoints are not OCSF events')
      // biome-ignore lint/suspicious/noExplicitAny: the event's nested fields are inspected freely
      const [event] = page.lines as Record<string, any>[]
      assert.equal(event!.class_uid, 6003)
      assert.equal(event!.category_uid, 6)
      assert.equal(event!.type_uid, 600399)
      assert.equal(event!.metadata.sequence, 1)
      assert.equal(event!.actor.user.uid, 'a-1')
      assert.equal(event!.api.operation, 'gateway.call')
      assert.equal(typeof event!.unmapped.gov.hash, 'string')
      assert.equal(page.end.next_cursor, '3')
    })

    it('refuses bad export parameters with 400 and needs the audit right', async () => {
      for (const query of [
        'after=-1',
        'after=x',
        'limit=0',
        'limit=100001',
        'format=csv',
        'cursor=3',
        'after=1&after=2',
      ]) {
        const res = await gw.admin('GET', `/audit/export?${query}`)
        assert.equal(res.status, 400, query)
        assert.equal(res.body.error.code, 'invalid_request')
      }
      assert.equal((await gw.admin('GET', '/audit/export', undefined, { key: null })).status, 401)
    })

    it('verifies an export offline and names what was tampered with', async () => {
      const exported = (await exportPage(gw.url, 'after=0&limit=100000')).text
      const jwks = (await gw.admin('GET', '/.well-known/jwks.json', undefined, { key: null })).body
      const jwksFile = join(dir, 'jwks.json')
      writeFileSync(jwksFile, JSON.stringify(jwks))
      const file = join(dir, 'audit.jsonl')
      writeFileSync(file, exported)
      const lines = exported.trim().split('\n')

      const intact = await verifyExportFile(file, jwks)
      assert.equal(intact.valid, true, JSON.stringify(intact))
      assert.equal(intact.records, 112)
      assert.equal(intact.checkpoints.verified, 3)
      assert.equal(intact.checkpoints.last_verified_seq, 105)
      assert.equal(intact.unsigned_records, 7)

      // Online verification agrees.
      const online = await gw.admin('GET', '/audit/verify')
      assert.equal(online.body.valid, true)
      assert.equal(online.body.checkpoints.verified, 3)

      const write = (edited: string[]) => {
        const path = join(dir, `tampered-${Math.random().toString(36).slice(2)}.jsonl`)
        writeFileSync(path, `${edited.join('\n')}\n`)
        return path
      }
      const recordIndex = (seq: number) =>
        lines.findIndex((l) => {
          const value = JSON.parse(l) as { seq?: number; type?: string }
          return value.type === undefined && value.seq === seq
        })

      // 1. One field of record 30 edited: the chain breaks there.
      const edited = [...lines]
      const r30 = JSON.parse(edited[recordIndex(30)]!) as AuditRecord
      edited[recordIndex(30)] = JSON.stringify({ ...r30, status: 403 })
      const one = await verifyExportFile(write(edited), jwks)
      assert.equal(one.valid, false)
      assert.deepEqual(one.first_broken, { seq: 30, id: r30.id, reason: 'hash_mismatch' })

      // 2. Record 30 edited and the whole chain rebuilt after it: the chain links, the checkpoint at 65 does not.
      const rebuilt = [...lines]
      let prev: string | undefined
      for (let i = 0; i < rebuilt.length; i++) {
        const value = JSON.parse(rebuilt[i]!) as AuditRecord & { type?: string }
        if (value.type !== undefined) continue
        if (value.seq < 30) {
          prev = value.hash
          continue
        }
        const content = { ...value, prev_hash: prev!, ...(value.seq === 30 ? { status: 403 } : {}) }
        const hash = hashRecord(content)
        rebuilt[i] = JSON.stringify({ ...content, hash })
        prev = hash
      }
      const rewritten = await verifyExportFile(write(rebuilt), jwks)
      assert.equal(rewritten.valid, false)
      assert.equal(rewritten.first_broken, undefined, 'the rebuilt chain itself links')
      assert.equal(rewritten.checkpoints.first_failed?.seq, 65)
      assert.equal(rewritten.checkpoints.first_failed?.reason, 'hash_mismatch')
      assert.deepEqual(rewritten.checkpoints.first_failed?.changed_between, [6, 65])

      // 3. A checkpoint's signed payload edited: the signature fails.
      const forged = [...lines]
      const cpIndex = forged.findIndex((l) => {
        const value = JSON.parse(l) as { type?: string; checkpoint?: { seq: number } }
        return value.type === 'checkpoint' && value.checkpoint?.seq === 65
      })
      const cp = JSON.parse(forged[cpIndex]!) as { checkpoint: { jws: string } }
      const [h, p, s] = cp.checkpoint.jws.split('.')
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>
      payload.hash = 'f'.repeat(64)
      cp.checkpoint.jws = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
      forged[cpIndex] = JSON.stringify(cp)
      const badSig = await verifyExportFile(write(forged), jwks)
      assert.equal(badSig.valid, false)
      assert.equal(badSig.checkpoints.first_failed?.seq, 65)
      assert.equal(badSig.checkpoints.first_failed?.reason, 'bad_signature')

      // 4. The newest records deleted in the database (checkpoints kept): the last signed head is missing.
      const cut = lines.filter((l) => {
        const value = JSON.parse(l) as { seq?: number; type?: string }
        return value.type !== undefined || (value.seq ?? 0) < 100
      })
      const truncated = await verifyExportFile(write(cut), jwks)
      assert.equal(truncated.valid, false)
      assert.equal(truncated.checkpoints.first_failed?.reason, 'record_missing')
      assert.equal(truncated.checkpoints.first_failed?.seq, 105)

      // 5. Another key set: the checkpoints cannot be checked.
      const other = await verifyExportFile(file, {
        keys: [
          {
            kty: 'OKP',
            crv: 'Ed25519',
            x: Buffer.alloc(32, 7).toString('base64url'),
            kid: 'other',
            alg: 'EdDSA',
          },
        ],
      })
      assert.equal(other.valid, false)
      assert.equal(other.checkpoints.first_failed?.reason, 'unknown_key')

      // 6. A line that is not JSON.
      const garbled = [...lines]
      garbled.splice(10, 0, '{"seq": 11, oops')
      const bad = await verifyExportFile(write(garbled), jwks)
      assert.equal(bad.valid, false)
      assert.equal(bad.bad_line?.line, 11)

      // A partial export (from a cursor) verifies from where it starts.
      const tail = (await exportPage(gw.url, 'after=60&limit=100000')).text
      const partial = await verifyExportFile(write(tail.trim().split('\n')), jwks)
      assert.equal(partial.valid, true, JSON.stringify(partial))
      assert.equal(partial.starts_after, 60)
      assert.equal(partial.checkpoints.verified, 2)
      assert.equal(readFileSync(file, 'utf8'), exported, 'the original export was left alone')
    })
  })
}
