import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { crc32, encodeBase62, hasValidBase62Checksum } from '../src/checksum.js'
import { effectiveEntropyThreshold, shannonEntropy } from '../src/entropy.js'
import { isPlaceholder, isSequential } from '../src/placeholder.js'
import { classifyName } from '../src/rules/generic.js'
import { alnum, checksummed, P } from './fixtures.js'

describe('checksum', () => {
  it('computes the standard CRC-32 check value', () => {
    assert.equal(crc32('123456789'), 0xcbf43926)
    assert.equal(crc32(''), 0)
  })

  it('encodes base62 with left padding', () => {
    assert.equal(encodeBase62(0, 6), '000000')
    assert.equal(encodeBase62(61, 2), '0z')
    assert.equal(encodeBase62(62, 1), '10')
    assert.equal(encodeBase62(0xffffffff, 6), '4gfFC3')
  })

  it('accepts a GitHub-format token with its checksum and rejects a changed one', () => {
    assert.equal(hasValidBase62Checksum(checksummed(P.ghp), 4), true)
    assert.equal(hasValidBase62Checksum(checksummed(P.ghp, true), 4), false)
    assert.equal(hasValidBase62Checksum(`${P.ghp}${alnum(30)}`, 4), false)
  })
})

describe('entropy', () => {
  it('is 0 for one repeated character and log2(n) for n distinct ones', () => {
    assert.equal(shannonEntropy('aaaa'), 0)
    assert.equal(shannonEntropy(''), 0)
    assert.equal(shannonEntropy('abcd'), 2)
  })

  it('scales the threshold down for values too short to reach it', () => {
    assert.equal(effectiveEntropyThreshold(64, 3.5), 3.5)
    assert.ok(effectiveEntropyThreshold(8, 3.5) < 3)
  })
})

describe('placeholders', () => {
  for (const value of [
    'xxxxxxxxxxxx',
    '********',
    `\${API_KEY}`,
    '{{ .Values.token }}',
    '<your-api-key>',
    '$1',
    '%TOKEN%',
  ]) {
    it(`basic: ${value}`, () => assert.equal(isPlaceholder(value, 'basic'), true))
  }
  for (const value of [
    'changeme',
    'your_api_key_here',
    'secret123',
    'client.apiKey',
    'getToken()',
    'abcdefgh12345',
  ]) {
    it(`strict: ${value}`, () => {
      assert.equal(isPlaceholder(value, 'strict'), true)
      assert.equal(isPlaceholder(value, 'basic'), false)
    })
  }
  for (const value of ['P@ssw0rd$1x', 'hQ8vL2mZ9rT4', 'd2LkV78zLx!t']) {
    it(`real-looking value is not a placeholder: ${value}`, () =>
      assert.equal(isPlaceholder(value, 'strict'), false))
  }
  it('sees alphabet and digit runs', () => {
    assert.equal(isSequential('abcdefghijklmnop'), true)
    assert.equal(isSequential('AbCeFG123'), true)
    assert.equal(isSequential('hQ8vL2mZ9rT4'), false)
  })
})

describe('generic names', () => {
  const cases: Array<[string, string | undefined]> = [
    ['DB_PASSWORD', 'password'],
    ['clientSecret', 'secret'],
    ['OPENAI_API_KEY', 'secret'],
    ['x-api-key', 'secret'],
    ['bot_token1', 'secret'],
    ['auth', 'secret'],
    ['public_key', undefined],
    ['publicToken', undefined],
    ['csrf-token', undefined],
    ['sequenceKey', undefined],
    ['keyVaultName', undefined],
    ['token_url', undefined],
    ['credentialsId', undefined],
    ['max_tokens', undefined],
    ['password_hash', undefined],
  ]
  for (const [name, expected] of cases)
    it(`${name} → ${expected}`, () => assert.equal(classifyName(name), expected))
})
