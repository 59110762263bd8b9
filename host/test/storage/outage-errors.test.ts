import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isOutage } from '../../src/storage/outage-errors.js'

describe('outage errors', () => {
  it('tells outages from data errors', () => {
    const sql = (code: string) => Object.assign(new Error('db'), { code })
    for (const outage of [
      sql('57014'), // statement timeout
      sql('57P01'), // terminated by an administrator
      sql('08006'), // connection failure
      sql('55P03'), // lock_timeout
      sql('53300'), // too many connections
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Failed query: select 1', { cause: sql('57P01') }),
    ]) {
      assert.equal(isOutage(outage), true, String(outage.message))
    }
    for (const data of [
      sql('23505'),
      sql('22P02'),
      sql('42P01'),
      new TypeError('x is undefined'),
      undefined,
    ]) {
      assert.equal(isOutage(data), false, String(data))
    }
  })
})
