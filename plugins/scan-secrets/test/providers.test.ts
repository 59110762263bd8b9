/**
 * Provider rules added in 0.3.0 (src/rules/prefixed.ts), the widened lone-token
 * rule and documentation-host database URLs: a generated true positive for each
 * and the look-alikes that must stay quiet. Prefixes are split so that the
 * repository holds no token-shaped literal.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { alnum, hex, random } from './fixtures.js'
import { scanText } from './helpers.js'

const LOWER36 = 'abcdefghijklmnopqrstuvwxyz0123456789'
const lower36 = (n: number) => random(LOWER36, n)
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`
const join = (...parts: string[]) => parts.join('')

/** [rule, text]: the rule must report a finding. */
const POSITIVES: Array<[string, string]> = [
  ['adafruit-io-key', `ADAFRUIT_IO_KEY=${join('aio', '_')}${alnum(24)}7k2Q`],
  ['apify-api-token', `token: ${join('apify', '_api_')}${alnum(36)}`],
  ['bannerbear-api-key', `${join('bb', '_pr_')}${hex(28)}9a`],
  ['bitbucket-datacenter-token', `BBDC${'-'}${alnum(44)}`],
  ['buildkite-user-token', `BUILDKITE_TOKEN=${join('bk', 'ua_')}${lower36(38)}7q`],
  ['cloudflare-cfk-key', `${join('cf', 'k_')}${alnum(46)}42`],
  ['dropbox-short-lived-token', `Authorization: x ${join('sl', '.')}${alnum(132)}`],
  ['elevenlabs-sk-key', `xi: ${join('sk', '_')}${hex(46)}7e`],
  ['hubspot-private-app-token', `${join('pat', '-na1-')}${uuid()}`],
  [
    'launchdarkly-sdk-key',
    `LD_SDK_KEY=${join('sdk', '-')}${lower36(8)}-${lower36(4)}-${lower36(4)}-${lower36(4)}-${lower36(10)}7z`,
  ],
  ['lob-live-key', `${join('live', '_')}${hex(33)}7f`],
  ['mapbox-secret-token', `${join('sk', '.')}${alnum(60)}.${alnum(30)}`],
  ['newrelic-license-key', `license_key: ${hex(36)}${'NR'}AL`],
  ['postman-api-key-run', `${join('PM', 'AK-')}${alnum(59)}`],
  ['pulumi-access-token', `PULUMI_ACCESS_TOKEN=${join('pu', 'l-')}${lower36(38)}4x`],
  ['saladcloud-api-key', `${join('salad', '_cloud_user_')}${alnum(50)}`],
  ['sourcegraph-slk-token', `${join('sl', 'k_')}${hex(64)}`],
  ['tailscale-key', `${join('ts', 'key-')}api-k${alnum(12)}CNTRL-${alnum(30)}`],
  ['teamwork-token', `${join('tkn', '.v1_')}${alnum(72)}=`],
  ['typeform-token-short', `${join('tf', 'p_')}${alnum(44)}`],
  ['voiceflow-api-key', `${join('VF', '.DM.')}${hex(24)}.${alnum(16)}`],
  ['airtable-pat', `${join('pa', 't')}${alnum(14)}.${hex(64)}`],
  ['airtable-oauth-token', `${join('oaa', alnum(14))}.v1.${alnum(120)}.${hex(32)}`],
  ['zapier-webhook', `POST https://hooks.zapier.com/hooks/catch/${alnum(16)}`],
  ['tines-webhook', `https://acme.tines.com/webhook/${lower36(32)}/${lower36(32)}`],
  [
    'docker-config-auth',
    `{"auths": {"registry.acme.io": {"auth": "${Buffer.from(`ci-bot:${alnum(20)}`).toString('base64')}"}}}`,
  ],
  [
    'docker-config-auth',
    `DOCKER_AUTH_CONFIG={\\"auths\\":{\\"r.io\\":{\\"auth\\":\\"${Buffer.from(`u:${alnum(12)}`).toString('base64')}\\"}}}`,
  ],
  ['docker-login-password', `docker login registry.acme.io -u deploy -p ${alnum(18)}+/x`],
]

/** Texts that must produce no finding at all. */
const NEGATIVES: Array<[string, string]> = [
  ['Adafruit key that is a word run', `${join('aio', '_')}${'x'.repeat(28)}`],
  ['Pulumi token of one letter', `${join('pu', 'l-')}${'a'.repeat(40)}`],
  [
    'docker login reading the password from stdin',
    'docker login -u deploy --password-stdin registry.acme.io',
  ],
  ['a GUID with a prefix', 'see #GUID-88B04BE2-35EF-4F61-B4FA-57A0E9102342 in the guide'],
  ['a slug in a URL', 'https://www.healthgrades.com/physician/dr-elizabeth-green-xylt56z'],
  ['a file name with words', '"file_paths": ["/downloads/john_doe_report_8765309.pdf"]'],
  ['a Bitcoin address', '("16Yeky6GMjeNkAiNcBY7ZhrLoMSgg1BoyZ", 1, ((0, 34),),),'],
  ['an Ethereum address', `send to 0x${'4a4fFEA0Cb7760ee42Bb1Dc82b1E4E5eDCacB9E7'}`],
  ['a JWK public coordinate', `{"kty":"EC","crv":"P-256","x":"${alnum(43)}","y":"${alnum(43)}"}`],
  ['a lower-case hex digest', hex(40)],
  ['a UUID', uuid()],
  [
    'a variable name where the bearer token goes',
    'curl -H "Authorization: Bearer YOUR_CRON_SECRET" https://acme.io/cron',
  ],
  ['an upper-case base36 digest-looking word run', 'STATUS_CODE_NOT_FOUND_ERROR_HANDLER_MAPPING'],
  ['a documentation URL with a word password', 'postgres://admin:password@db.example.com:5432/app'],
]

describe('scan_secrets provider rules (0.3.0)', () => {
  for (const [rule, text] of POSITIVES) {
    it(`${rule} finds ${text.slice(0, 40)}…`, () => {
      const rules = scanText(text).map((f) => f.detail?.rule)
      assert.ok(rules.includes(rule), `expected ${rule}, got ${JSON.stringify(rules)}`)
    })
  }
  for (const [label, text] of NEGATIVES) {
    it(`no finding: ${label}`, () => {
      assert.deepEqual(
        scanText(text).map((f) => `${f.type}/${String(f.detail?.rule)}`),
        [],
      )
    })
  }
})

describe('scan_secrets lone tokens and documentation hosts (0.3.0)', () => {
  it('a mixed-case hex token standing alone is a lone secret', () => {
    const token = `${'4a4fFEA0Cb7760ee42Bb1Dc82b1E4E5eDCacB9E7'}`
    assert.deepEqual(
      scanText(token).map((f) => f.type),
      ['high_entropy_string'],
    )
  })
  it('a UUID-shaped key with non-hex letters is a lone secret', () => {
    const text = `${lower36(7)}x-${lower36(3)}q-${lower36(3)}z-${lower36(3)}w-${lower36(11)}k`
    assert.deepEqual(
      scanText(text).map((f) => f.type),
      ['high_entropy_string'],
    )
  })
  it('docker-config-auth needs base64 of user:password', () => {
    const text = `{"auth": "${Buffer.from('no-colon-here-at-all').toString('base64')}"}`
    assert.ok(!scanText(text).some((f) => f.detail?.rule === 'docker-config-auth'))
  })
  it('a base36 key with a long letter run but few vowels is a lone secret', () => {
    assert.deepEqual(
      scanText('af6dmku2agtwytrdfxxyf3gcszoa6one').map((f) => f.type),
      ['high_entropy_string'],
    )
  })
  it('a 40-character base64 key with + and / is a lone secret', () => {
    const token = `${alnum(7)}/+${alnum(15)}/${alnum(12)}3k2`
    assert.deepEqual(
      scanText(token).map((f) => f.type),
      ['high_entropy_string'],
    )
  })
  it('a generated password on a documentation host is kept at 0.7, a word password is not', () => {
    const strong = scanText(
      'mongodb://reader:D1fficultP%40ssw0rd@mongodb0.example.com:27017/?authSource=admin',
    )
    assert.deepEqual(
      strong.map((f) => [f.type, f.score]),
      [['database_url', 0.7]],
    )
  })
  it('a letters-only key that mixes cases throughout is a generic secret; camelCase identifiers are not', () => {
    const key = 'wjXKCFzOWEPRqhTmmbWtVQ'
    assert.deepEqual(
      scanText(`export PROXY_API_KEY=${key}`).map((f) => f.type),
      ['generic_secret'],
    )
    assert.deepEqual(scanText('export PROXY_API_KEY=getUserAccountSettingsHandler'), [])
  })
  it('a dotted multi-part token is a value, a member access is code', () => {
    const token = `${alnum(18)}3Q.${alnum(16)}.${alnum(40)}7x`
    assert.deepEqual(
      scanText(`yandex token = '${token}'`).map((f) => f.type),
      ['generic_secret'],
    )
    assert.deepEqual(scanText('api_key = config.services.apiKey'), [])
  })
  it('an upper-case base36 key with few vowels is a lone secret', () => {
    assert.deepEqual(
      scanText(`${random('BCDFGHJKLMNPQRSTVWXZ0123456789', 46)}7Q`).map((f) => f.type),
      ['high_entropy_string'],
    )
  })
  it('a chosen password that mixes letters and digits is a password; a word password is not', () => {
    assert.deepEqual(
      scanText('db_password = "hunter2hunter"').map((f) => f.type),
      ['generic_secret'],
    )
    assert.deepEqual(scanText('db_password = "correcthorse"'), [])
  })
  it('a file name with digits is not a lone secret', () => {
    assert.deepEqual(scanText('"name": "IncomeTaxReturns2022.pdf", "type": "file"'), [])
  })
})
