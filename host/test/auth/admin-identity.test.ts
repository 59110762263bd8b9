import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ADMIN, AUDITOR, AUDITOR_KEY_NAME, identifyAdmin } from '../../src/auth/admin-credentials.js'
import { apiAreaOf } from '../../src/auth/api-area.js'
import type { SecretSource } from '../../src/secrets/secret-source.js'

/** A secret source over a map; `fail` makes every read throw like an unreachable vault. */
function source(values: Record<string, string>, fail = false): SecretSource {
  return {
    kind: 'test',
    async get(name) {
      if (fail) throw new Error('vault unreachable')
      return values[name]
    },
    invalidate() {},
  }
}

describe('admin credentials', () => {
  it('tells the admin key from the auditor key', async () => {
    const secrets = source({ [AUDITOR_KEY_NAME]: 'aud-key' })
    assert.equal(await identifyAdmin('adm-key', 'adm-key', secrets), ADMIN)
    assert.equal(await identifyAdmin('aud-key', 'adm-key', secrets), AUDITOR)
    assert.equal(await identifyAdmin('agent-key', 'adm-key', secrets), undefined)
  })

  it('has no auditor when the key is unset, or cannot be read', async () => {
    assert.equal(await identifyAdmin('aud-key', 'adm-key', source({})), undefined)
    assert.equal(await identifyAdmin('', 'adm-key', source({ [AUDITOR_KEY_NAME]: '' })), undefined)
    assert.equal(
      await identifyAdmin('aud-key', 'adm-key', source({ [AUDITOR_KEY_NAME]: 'aud-key' }, true)),
      undefined,
    )
    assert.equal(await identifyAdmin('adm-key', 'adm-key', source({}, true)), ADMIN)
  })

  it('reads the auditor key on each use, so a rotated key applies at once', async () => {
    const values = { [AUDITOR_KEY_NAME]: 'old' }
    const secrets = source(values)
    assert.equal(await identifyAdmin('old', 'adm-key', secrets), AUDITOR)
    values[AUDITOR_KEY_NAME] = 'new'
    assert.equal(await identifyAdmin('old', 'adm-key', secrets), undefined)
    assert.equal(await identifyAdmin('new', 'adm-key', secrets), AUDITOR)
  })
})

describe('apiAreaOf', () => {
  it('names the API area of a route', () => {
    const cases: [string, string][] = [
      ['/pipelines', 'pipelines'],
      ['/pipelines/support/assign/bot?x=1', 'pipelines'],
      ['/agents/bot/rotate-key', 'agents'],
      ['/health/overview', 'agents'],
      ['/metrics', 'metrics'],
      ['/admin/secrets/invalidate?name=OPENAI_API_KEY', 'secrets'],
      ['/admin/policy/reload', 'policy'],
      ['/admin/tokens/rotate', 'tokens'],
      ['/audit/verify', 'audit'],
    ]
    for (const [url, area] of cases) assert.equal(apiAreaOf(url), area, url)
  })
})
