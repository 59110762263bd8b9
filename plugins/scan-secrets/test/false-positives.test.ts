/**
 * The false-positive classes that matter in real traffic (hashes, UUIDs,
 * lockfiles, public keys, placeholders, base64 media, code identifiers) and
 * the context-only true positives the named-value and lone-token rules exist
 * for. Values come from the seeded generator in fixtures.ts.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { alnum, b64, pem, random } from './fixtures.js'
import { kindsIn, scanText } from './helpers.js'

const LOWER36 = 'abcdefghijklmnopqrstuvwxyz0123456789'
const sha = (algorithm: string) => createHash(algorithm).update(alnum(20)).digest('hex')

const NEGATIVES: Record<string, Array<[string, string]>> = {
  hashes: [
    ['md5 digest alone', sha('md5')],
    ['sha256 digest alone', sha('sha256')],
    ['sha256: prefixed digest', `sha256:${sha('sha256')}`],
    ['docker image digest', `image: ghcr.io/acme/api@sha256:${sha('sha256')}`],
    ['git checkout of a SHA', `git checkout ${sha('sha1')}`],
    ['git diff range', `git diff ${sha('sha1')}..HEAD -- src/`],
    ['commit hash in prose', `The regression came in with commit ${sha('sha1').slice(0, 12)}, see the PR.`],
    ['checksum line', `${sha('sha256')}  release-1.4.2.tar.gz`],
  ],
  uuids: [
    ['uuid alone', crypto.randomUUID()],
    ['request id', `x-request-id: ${crypto.randomUUID()}`],
    ['uuid in JSON', `{"id": "${crypto.randomUUID()}", "status": "done"}`],
  ],
  lockfiles: [
    ['npm integrity', `"integrity": "sha512-${b64(86)}=="`],
    ['yarn integrity alone', `sha512-${b64(86)}==`],
    ['go.sum line', `github.com/acme/lib v1.2.3 h1:${b64(43)}=`],
    ['pip hash', `requests==2.32.3 --hash=sha256:${sha('sha256')}`],
  ],
  public_keys: [
    ['ssh public key', `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${b64(43)} dev@laptop`],
    ['PEM public key', pem('PUBLIC KEY')],
    ['certificate', pem('CERTIFICATE')],
    [
      'PGP public key block',
      `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBF${b64(64)}\n${b64(64)}\n-----END PGP PUBLIC KEY BLOCK-----`,
    ],
    ['publishable key field', `publishableKey: "${alnum(40)}"`],
  ],
  placeholders: [
    ['xxx mask', 'API_KEY=xxxxxxxxxxxxxxxxxxxxxxxx'],
    ['angle-bracket slot', 'my stripe key is <your-stripe-api-key>, please add it'],
    ['shell variable', `export OPENAI_API_KEY=\${OPENAI_API_KEY}`],
    ['environment lookup', 'token = os.environ["GITHUB_TOKEN"]'],
    ['EXAMPLE key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['your-key-here', 'Here is my key: your_api_key_here'],
    ['env var name as the value', 'use this token for the deploy step: YOUR_TELEGRAM_BOT_TOKEN'],
  ],
  media: [
    ['PNG data URI', `<img src="data:image/png;base64,iVBORw0KGgo${b64(400)}">`],
    ['bare PNG base64', `iVBORw0KGgoAAAANSUhEUgAA${b64(200)}`],
  ],
  code: [
    ['camelCase identifiers', 'const isMediaGenerationAvailable = featureFlags.mediaGenerationEnabled'],
    ['CSRF token field', `<input type="hidden" name="authenticity_token" value="${alnum(40)}">`],
    ['token count', 'The token limit is 128000 and the key length is 2048 bits.'],
    ['dotted path', 'import { getSecretValue } from "@aws-sdk/client-secrets-manager"'],
    ['version string', 'Use key version v2.14.0-rc.1 for the rollout'],
    ['SQL', 'SELECT id, api_key_id FROM keys WHERE created_at > now() ORDER BY id DESC'],
    ['identifier with numbered parts', "cacheKey = 'User_Profile_7_12'"],
    ['versioned name', '"bucket_key": "QuarterlyReport-2.4"'],
    ['artifact coordinates', 'signing key from org.example:spring-boot-starter-3.2.1'],
    ['empty assignment above another', 'SERVICE_API_KEY=\nNEXT_SETTING_NAME='],
  ],
  prose: [
    ['question about keys', 'How do I rotate an API key in AWS without downtime?'],
    ['product names', 'Compare Kubernetes, OpenShift and Nomad for a 40-node cluster in eu-west-1.'],
  ],
}

describe('false-positive classes stay silent', () => {
  for (const [cls, cases] of Object.entries(NEGATIVES)) {
    describe(cls, () => {
      for (const [name, text] of cases) {
        it(name, () => assert.deepEqual(kindsIn(text), []))
      }
    })
  }
})

const POSITIVES: Array<[string, string, string]> = [
  ['named in prose', 'generic_secret', `my mailjet creds are ${alnum(32)}, please add them to the config`],
  ['named after a colon', 'generic_secret', `Here is my imagga key: ${alnum(40)} - can you check the 401?`],
  ['log line', 'generic_secret', `[DEBUG] Using Key=${random(LOWER36, 32)}\n[INFO] 200 OK`],
  ['one-word variable name', 'generic_secret', `$env:CLICKUPPERSONALTOKEN = "pk_${alnum(36)}"`],
  ['k8s env value under its name', 'generic_secret', `  - name: ACME_API_KEY\n    value: "${alnum(32)}"`],
  [
    'curl -u on the third continued line',
    'basic_auth',
    `curl https://api.internal.corp/v1/jobs \\\n  -H "Accept: application/json" \\\n  -u deploy:${alnum(20)} \\\n  -d @job.json`,
  ],
  ['lone random token', 'high_entropy_string', alnum(40)],
  ['lone base36 token', 'high_entropy_string', random(LOWER36, 32).replace(/^[a-z]/, 'q1')],
]

describe('context-only secrets are found', () => {
  for (const [name, kind, text] of POSITIVES) {
    it(name, () => {
      const findings = scanText(text)
      assert.ok(
        findings.some((f) => f.type === kind),
        `${kind} expected, got [${findings.map((f) => f.type)}]`,
      )
    })
  }

  it('reports the token, not the words that name it', () => {
    const value = alnum(32)
    const text = `my mailjet creds are ${value}, thanks`
    const [finding] = scanText(text)
    assert.equal(text.slice(finding.span?.start, finding.span?.end), value)
  })
})
