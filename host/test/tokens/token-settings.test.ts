import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { GovError } from '@gov/core'
import { isSecretName } from '../../src/secrets/secret-source.js'
import { readTokenSettings } from '../../src/tokens/token-settings.js'

describe('token settings', () => {
  it('defaults to five minutes, audience gov-tools, issuer gov, reuse within the same second', () => {
    assert.deepEqual(readTokenSettings({}), {
      ttlSeconds: 300,
      audience: 'gov-tools',
      issuer: 'gov',
      reuse: 'same-second',
    })
  })

  it('reads GOV_TOKEN_TTL_SECONDS, GOV_TOKEN_AUDIENCE and GOV_TOKEN_ISSUER', () => {
    assert.deepEqual(
      readTokenSettings({
        GOV_TOKEN_TTL_SECONDS: '60',
        GOV_TOKEN_AUDIENCE: 'crm-tools',
        GOV_TOKEN_ISSUER: 'gov-eu',
        GOV_TOKEN_REUSE: 'off',
      }),
      { ttlSeconds: 60, audience: 'crm-tools', issuer: 'gov-eu', reuse: 'off' },
    )
  })

  for (const ttl of ['0', '-5', '1.5', 'five', '86401']) {
    it(`refuses GOV_TOKEN_TTL_SECONDS=${ttl}`, () => {
      assert.throws(
        () => readTokenSettings({ GOV_TOKEN_TTL_SECONDS: ttl }),
        (err: GovError) => err.code === 'GOV_ERR_CONFIG_INVALID',
      )
    })
  }

  it('reads GOV_TOKEN_REUSE=same-second, and an empty value as the default', () => {
    assert.equal(readTokenSettings({ GOV_TOKEN_REUSE: 'same-second' }).reuse, 'same-second')
    assert.equal(readTokenSettings({ GOV_TOKEN_REUSE: '' }).reuse, 'same-second')
  })

  for (const reuse of ['on', 'OFF', ' off', 'same_second', 'always', '1']) {
    it(`refuses GOV_TOKEN_REUSE=${JSON.stringify(reuse)} naming the accepted values`, () => {
      assert.throws(
        () => readTokenSettings({ GOV_TOKEN_REUSE: reuse }),
        (err: GovError) =>
          err.code === 'GOV_ERR_CONFIG_INVALID' &&
          err.message.includes('GOV_TOKEN_REUSE') &&
          err.message.includes('same-second, off'),
      )
    })
  }

  it('refuses an audience with surrounding spaces', () => {
    assert.throws(
      () => readTokenSettings({ GOV_TOKEN_AUDIENCE: ' tools ' }),
      (err: GovError) => err.code === 'GOV_ERR_CONFIG_INVALID',
    )
  })

  it('reads the signing key as a secret', () => {
    assert.equal(isSecretName('GOV_TOKEN_SIGNING_KEY'), true)
    assert.equal(isSecretName('GOV_TOKEN_TTL_SECONDS'), false)
  })
})
