/** `extractKey`: its fast path for `Bearer <key>` answers as the full pattern does. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '@gov/core/testing'
import { extractKey } from '../../src/auth/credentials.js'

/** The rule as written before the fast path: the regex alone. */
function byPattern(auth: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1]
}

describe('extractKey', () => {
  it('reads Authorization as the Bearer pattern does, fast path or not', () => {
    const cases = [
      'Bearer gov_abc',
      'Bearer  gov_abc',
      'bearer gov_abc',
      'BEARER gov_abc',
      'Bearer gov_abc ',
      'Bearer\tgov_abc',
      'Bearer gov abc',
      'Bearer ',
      'Bearer',
      'Bearergov_abc',
      'Bearer gov_ab\u00e9',
      'Bearer gov_\u00a0abc',
      'Bearer gov_abc\u2028',
      'Bearer ~!@#$%^&*()',
      'Bearer \u0020',
      'Basic Zm9vOmJhcg==',
      ' Bearer gov_abc',
    ]
    const next = seededRandom(7)
    const alphabet = 'ab ~\t\u00a0\u00e9_-\u007f\u0021'
    for (let i = 0; i < 2000; i++) {
      let key = ''
      for (let n = Math.floor(next() * 6); n > 0; n--) key += alphabet[Math.floor(next() * alphabet.length)]
      cases.push(`Bearer ${key}`)
    }
    for (const auth of cases)
      assert.equal(extractKey({ authorization: auth }), byPattern(auth), JSON.stringify(auth))
  })

  it('falls back to x-api-key, trimmed', () => {
    assert.equal(extractKey({ 'x-api-key': ' gov_k ' }), 'gov_k')
    assert.equal(extractKey({ authorization: 'Basic x', 'x-api-key': 'gov_k' }), 'gov_k')
    assert.equal(extractKey({}), undefined)
  })
})
