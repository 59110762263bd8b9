/**
 * Values pasted alone (0.4.0): the lone-token bar relaxed where random keys
 * fall just short of it (a letter run that grows with the token's length, an
 * entropy bar 0.1 bit lower, letters-only base52 keys, base36 keys with many
 * digits), vendor shapes added or widened, and the harmless classes that must
 * stay quiet under the relaxed bar (ULIDs, build names with a version or a
 * date stamp, hex in mixed case, publishable keys in hex). Prefixes are split
 * so that the repository holds no token-shaped literal.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { describe, it } from 'node:test'
import { rootCertificates } from 'node:tls'
import { alnum, hex } from './fixtures.js'
import { scanText } from './helpers.js'

const join = (...parts: string[]) => parts.join('')
const kinds = (text: string) => scanText(text).map((f) => f.type)
const rules = (text: string) => scanText(text).map((f) => String(f.detail?.rule))

describe('scan_secrets bare values (0.4.0)', () => {
  const LONE: Array<[string, string]> = [
    ['a 40-character base62 key with a 9-letter lower-case run', '4hN7pqzkbxmtwd2Rc8Lv2Qd9XfRj4Tg6Ws1Ya5Pe'],
    ['a base36 key just under the old entropy bar (3.99 bits)', 'k7mnuq7p3bwc87b2zk29x7ykp2xqkkd0'],
    ['a letters-only key that mixes cases throughout', 'KqZmTxRbWpLfNvHcGdJsYw'],
    ['a base36 key with a digit every few characters and many vowels', '7ufkcmhsdea8blom1wzr8e6bai9s507u'],
  ]
  for (const [label, token] of LONE) {
    it(`lone secret: ${label}`, () => assert.deepEqual(kinds(token), ['high_entropy_string']))
  }

  const VENDOR: Array<[string, string]> = [
    ['hex-secret-key-prefixed', `${join('sk', '_')}${hex(30)}7e`],
    ['hex-secret-key-prefixed', `${join('pri', '_')}${hex(30)}a9`],
    ['huggingface-access-token', `${join('hf', '_')}${alnum(30)}Ab7z`],
    ['rootly-api-key', `${join('rootly', '_')}${hex(62)}4d`],
    ['url-credentials', `smb://admin:${alnum(10)}7q@nas.local/share`],
    ['url-credentials', `sip://alice:${alnum(10)}3z@voip.acme.io`],
    ['url-credentials', `git+ssh://bob:${alnum(10)}8k@git.acme.io/repo.git`],
    ['generic-secret-assignment', `DUO_SKEY=${alnum(38)}2x`],
    ['newrelic-license-key', `${hex(34).toUpperCase()}9F${'NR'}AL`],
    ['newrelic-license-key', `${join('eu01', 'xx')}${hex(34)}7c-${'NR'}MA`],
  ]
  for (const [rule, text] of VENDOR) {
    it(`${rule} finds ${text.slice(0, 12)}…`, () => {
      assert.ok(rules(text).includes(rule), `expected ${rule}, got ${JSON.stringify(rules(text))}`)
    })
  }

  it('a database URL with a + in its scheme is one database_url finding, not also url_credentials', () => {
    assert.deepEqual(kinds(`mongodb+srv://app:${alnum(12)}@cluster0.ab1cd.mongodb.net/db`), ['database_url'])
  })

  it('a JWT whose header does not decode to an alg is still a jwt (0.6); a dotted eyJ string without claims is not', () => {
    const shaped = `${join('ey', 'J')}${alnum(30)}.${join('ey', 'J')}${alnum(40)}.${alnum(43)}`
    assert.deepEqual(
      scanText(shaped).map((f) => [f.type, f.score]),
      [['jwt', 0.6]],
    )
    assert.ok(!kinds(`${join('ey', 'J')}${alnum(30)}.section.v2`).includes('jwt'))
  })

  describe('a private key body pasted without its armour', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
    const body = (pem: string) => pem.split('\n').slice(1, -2).join('\n')
    const bodies: Array<[string, string]> = [
      ['PKCS#1 RSA', body(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string)],
      ['PKCS#8 RSA', body(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)],
      [
        'SEC1 EC P-256',
        body(
          generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
            type: 'sec1',
            format: 'pem',
          }) as string,
        ),
      ],
      [
        'PKCS#8 Ed25519',
        body(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
      ],
    ]
    for (const [label, text] of bodies) {
      it(`${label} is one private_key finding over all its lines`, () => {
        const findings = scanText(text)
        assert.deepEqual(
          findings.map((f) => f.type),
          ['private_key'],
        )
        assert.equal(findings[0].span?.end, text.length)
      })
    }
    it('inside armour only the PEM rule reports', () => {
      assert.deepEqual(rules(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string), [
        'private-key',
      ])
    })
    it('public key bodies (RSA, EC) pasted without armour give no finding at all', () => {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      for (const key of [
        rsa.publicKey,
        generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey,
        ec.publicKey,
      ]) {
        assert.deepEqual(rules(body(key.export({ type: 'spki', format: 'pem' }) as string)), [])
      }
    })
    it('certificate bodies pasted without armour give no finding at all', () => {
      for (const pem of rootCertificates.slice(0, 40)) {
        const text = pem
          .split('\n')
          .filter((line) => line && !line.startsWith('-----'))
          .join('\n')
        assert.deepEqual(rules(text), [], text.slice(0, 40))
      }
    })
  })

  const QUIET: Array<[string, string]> = [
    ['a ULID in capitals', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['a ULID in lower case', 'order 01hgw3w2x5m0fx9r7yqk4t6b8n was shipped'],
    [
      'a build name with a version and a date stamp',
      'COMMUNICATION_API_VERSION=rc0.13.0_20230412_0712-SNAPSHOT',
    ],
    ['a hex string in mixed case', 'Ba7e96640ad7DCD46AD73687946Ce85047d5C9Fb'],
    ['a publishable key in hex (pk_)', `${join('pk', '_')}${hex(30)}4b`],
    ['a public key in hex (pub_)', `${join('pub', '_')}${hex(30)}0c`],
    [
      'a certificate body line without its armour',
      'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ',
    ],
    [
      'a certificate body line without + or /',
      'BgNVBAMTEkJhbHRpbW9yZSBDeWJlclRydXN0IFJvb3QwHhcNMDAwNTEyMTg0NjAw',
    ],
    ['a URL of any scheme with a word password', 'smb://guest:guest@nas.local/share'],
    ['a URL with a port and no user', 'see https://example.com:8080/path and foo://bar'],
    ['a word run in capitals with digits', 'ERROR_CODE_404_NOT_FOUND_IN_REGISTRY_V2'],
  ]
  for (const [label, text] of QUIET) {
    it(`no finding: ${label}`, () => assert.deepEqual(rules(text), []))
  }
})
