import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { nextCursor, parseAuditQuery } from '../../src/audit/audit-query.js'

const parse = (query: string) => parseAuditQuery(new URLSearchParams(query))

describe('GET /audit query', () => {
  it('defaults to the newest 100 records', () => {
    assert.deepEqual(parse(''), { order: 'desc', limit: 100 })
  })

  it('reads every filter and normalises times to UTC', () => {
    assert.deepEqual(
      parse(
        'agent_id=a-1&session_id=s:1&outcome=observed&kind=call&from=2026-05-01T14:00:00%2B02:00&to=2026-05-02&limit=5',
      ),
      {
        order: 'desc',
        limit: 5,
        agentId: 'a-1',
        sessionId: 's:1',
        outcome: 'observed',
        kind: 'call',
        from: '2026-05-01T12:00:00.000Z',
        to: '2026-05-02T00:00:00.000Z',
      },
    )
  })

  it('turns the cursor into a bound on seq in the direction of the order', () => {
    assert.equal(parse('cursor=40').beforeSeq, 40)
    assert.equal(parse('cursor=40&order=asc').afterSeq, 40)
    assert.equal(parse('order=asc&cursor=40').beforeSeq, undefined)
  })

  it('names the bad parameter in details', () => {
    assert.throws(
      () => parse('outcome=allowed&agnet_id=x'),
      (e: unknown) =>
        e instanceof GovError && e.code === 'invalid_request' && e.details?.parameter === 'agnet_id',
    )
  })

  it('gives a next cursor only when one more record than the page was found', () => {
    const seqs = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: 10 - i }))
    assert.equal(nextCursor(seqs(3), 3), null)
    assert.equal(nextCursor(seqs(4), 3), '8')
  })
})
