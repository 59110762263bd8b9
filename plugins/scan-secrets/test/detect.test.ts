import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { alnum, b64, base64url, checksummed, hex, jwt, letters, P, pem, random } from './fixtures.js'
import { kindsIn, scanText } from './helpers.js'

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'
const digits = (n: number) => random('0123456789', n)

/** [kind, rule-or-undefined, text]: each must be found with that kind. */
const POSITIVES: Array<[string, string | undefined, string]> = [
  ['aws_access_key_id', 'aws-access-key-id', `export AWS_ACCESS_KEY_ID=${P.akia}${random(B32, 16)}`],
  ['aws_secret_access_key', undefined, `aws_secret_access_key = ${random(`${URLSAFE.slice(0, 62)}/+`, 40)}`],
  ['aws_session_token', undefined, `AWS_SESSION_TOKEN=${b64(320)}`],
  ['aws_bedrock_api_key', undefined, `key: AB${'SKQmVkcm9ja0FQSUtleS'}${b64(110)}`],
  ['gcp_api_key', 'gcp-api-key', `const firebase = { apiKey: "${P.aizasy}${random(URLSAFE, 33)}" }`],
  [
    'gcp_service_account',
    'gcp-service-account-key-id',
    `{"type": "service_account", "project_id": "demo", "private_key_id": "${hex(40)}", "client_email": "svc@demo.iam.gserviceaccount.com"}`,
  ],
  [
    'azure_storage_key',
    undefined,
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${b64(86)}==;EndpointSuffix=core.windows.net`,
  ],
  [
    'azure_connection_string',
    undefined,
    `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${b64(43)}=`,
  ],
  [
    'azure_sas_token',
    undefined,
    `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&sp=r&se=2030-01-01T00:00:00Z&sig=${alnum(43)}%3D`,
  ],
  ['azure_client_secret', undefined, `client_secret: "${alnum(3)}8Q~${random(`${URLSAFE}~.`, 34)}"`],
  ['azure_devops_pat', undefined, `AZURE_DEVOPS_PAT=${random('abcdefghijklmnopqrstuvwxyz234567', 52)}`],
  ['alibaba_access_key', undefined, `accessKeyId: LTAI${alnum(20)}`],
  ['cloud_platform_token', 'digitalocean-token', `DIGITALOCEAN_TOKEN=${P.dop}${hex(64)}`],
  ['cloud_platform_token', 'heroku-api-key-v2', `heroku: ${P.hrku}${random(URLSAFE, 58)}`],
  ['vault_token', undefined, `VAULT_TOKEN=${P.hvs}${random(URLSAFE, 95)}`],
  ['openai_api_key', 'openai-api-key', `OPENAI_API_KEY=${P.skProj}${alnum(74)}${P.openaiMark}${alnum(74)}`],
  ['anthropic_api_key', 'anthropic-api-key', `x-api-key: ${P.skAnt}api03-${random(URLSAFE, 93)}AA`],
  [
    'anthropic_api_key',
    'claude-code-oauth-token',
    `CLAUDE_CODE_OAUTH_TOKEN="${P.skAnt}oat01-${random(URLSAFE, 95)}"`,
  ],
  ['llm_api_key', 'nvidia-api-key', `NVIDIA_API_KEY=nvapi-${random(URLSAFE, 64)}`],
  ['payment_api_key', 'adyen-api-key', `ADYEN_API_KEY=AQE${hex(6)}.${random(URLSAFE, 60)}`],
  [
    'generic_secret',
    'django-insecure-secret-key',
    `SECRET_KEY = "django-insecure-${random(`${URLSAFE}!%^&*(`, 50)}"`,
  ],
  ['generic_secret', 'ansible-vault', `$ANSIBLE_VAULT;1.1;AES256\n${hex(80)}\n${hex(80)}`],
  ['huggingface_token', undefined, `huggingface-cli login --token ${P.hf}${letters(34)}`],
  ['llm_api_key', 'groq-api-key', `GROQ_API_KEY=${P.gsk}${alnum(52)}`],
  ['llm_api_key', 'perplexity-api-key', `${P.pplx}${alnum(48)}`],
  ['llm_api_key', 'xai-api-key', `XAI_API_KEY="${P.xai}${alnum(80)}"`],
  ['llm_api_key', 'replicate-api-token', `REPLICATE_API_TOKEN=${P.r8}${alnum(37)}`],
  ['llm_api_key', 'openrouter-api-key', `${P.orKey}${hex(64)}`],
  ['llm_api_key', 'cohere-api-key', `COHERE_API_KEY=${alnum(40)}`],
  ['llm_api_key', 'mistral-api-key', `mistral_api_key: "${alnum(32)}"`],
  [
    'github_token',
    'github-token',
    `git remote set-url origin https://${checksummed(P.ghp)}@github.com/o/r.git`,
  ],
  ['github_token', 'github-fine-grained-pat', `GH_TOKEN=${P.ghPat}${alnum(22)}_${alnum(59)}`],
  ['gitlab_token', 'gitlab-pat', `PRIVATE-TOKEN: ${P.glpat}${random(URLSAFE, 20)}`],
  ['package_registry_token', 'npm-access-token', `//registry.npmjs.org/:_authToken=${checksummed(P.npm)}`],
  ['package_registry_token', 'pypi-upload-token', `password = ${P.pypi}${random(URLSAFE, 120)}`],
  ['devtools_token', 'datadog-api-key', `DATADOG_API_KEY=${hex(32)}`],
  ['devtools_token', 'grafana-service-account-token', `Bearer glsa_${alnum(32)}_${hex(8)}`],
  ['slack_token', 'slack-bot-token', `SLACK_BOT_TOKEN=${P.xoxb}${digits(12)}-${digits(13)}-${alnum(24)}`],
  ['slack_webhook', undefined, `${P.slackHook}T${random(B32, 8)}/B${random(B32, 10)}/${alnum(24)}`],
  ['discord_token', 'discord-webhook-url', `${P.discordHook}${digits(18)}/${random(URLSAFE, 68)}`],
  [
    'discord_token',
    'discord-bot-token',
    `DISCORD_TOKEN=M${digits(3)}${alnum(22)}.${random(URLSAFE, 6)}.${random(URLSAFE, 38)}`,
  ],
  ['telegram_bot_token', 'telegram-bot-token', `bot${digits(10)}:AA${random(URLSAFE, 33)}`],
  [
    'teams_webhook',
    undefined,
    `https://acme${P.teamsHook}${crypto.randomUUID()}@${crypto.randomUUID()}/IncomingWebhook/${hex(32)}/${crypto.randomUUID()}`,
  ],
  ['stripe_key', 'stripe-live-key', `Stripe.api_key = "${P.skLive}${alnum(99)}"`],
  ['square_token', undefined, `SQUARE_ACCESS_TOKEN=${P.sq0atp}${random(URLSAFE, 22)}`],
  ['paypal_braintree_token', undefined, `${P.braintree}${alnum(16).toLowerCase()}$${hex(32)}`],
  ['shopify_token', undefined, `X-Shopify-Access-Token: ${P.shpat}${hex(32)}`],
  ['sendgrid_api_key', undefined, `SENDGRID_API_KEY=${P.sg}${random(URLSAFE, 22)}.${random(URLSAFE, 43)}`],
  ['twilio_api_key', 'twilio-api-key', `TWILIO_API_KEY=${P.twilioSk}${hex(32)}`],
  ['mailgun_api_key', undefined, `MAILGUN_KEY=${P.mailgun}${hex(32)}`],
  ['mailchimp_api_key', undefined, `mc = Client("${hex(32)}-us6")`],
  ['email_api_key', undefined, `xkeysib-${hex(64)}-${alnum(16)}`],
  ['atlassian_api_token', 'atlassian-api-token', `JIRA_TOKEN=${P.atatt}${random(URLSAFE, 186)}`],
  ['saas_api_key', 'notion-api-token', `NOTION_TOKEN=ntn_${digits(11)}${alnum(35)}`],
  [
    'password_manager_secret',
    undefined,
    `A3-${random(B32, 6)}-${random(B32, 11)}-${random(B32, 5)}-${random(B32, 5)}-${random(B32, 5)}`,
  ],
  ['private_key', 'private-key', `here is my key:\n${pem('RSA PRIVATE KEY')}\n`],
  ['private_key', 'private-key', pem('EC PRIVATE KEY', 160)],
  ['private_key', 'private-key', pem('OPENSSH PRIVATE KEY', 1200)],
  ['private_key', 'private-key', pem('PRIVATE KEY', 1600)],
  ['private_key', 'private-key', pem('ENCRYPTED PRIVATE KEY', 1600)],
  ['private_key', 'private-key', pem('PGP PRIVATE KEY BLOCK', 2000)],
  [
    'private_key',
    'private-key-truncated',
    `-----BEGIN RSA PRIVATE KEY-----\n${b64(64)}\n${b64(64)}\n${b64(30)}`,
  ],
  ['jwt', 'jwt', `Authorization header was ${jwt()} yesterday`],
  ['jwt', 'jwt', `token=${jwt({ alg: 'RS256', kid: alnum(10) })}`],
  ['database_url', 'database-url', `DATABASE_URL=postgres://app:${alnum(20)}@db.internal:5432/app`],
  ['database_url', 'database-url', `mysql://root:${alnum(12)}@10.0.0.5/shop`],
  [
    'database_url',
    'database-url',
    `mongodb+srv://svc:${alnum(16)}@cluster0.abcd.mongodb.net/prod?retryWrites=true`,
  ],
  ['database_url', 'database-url', `REDIS_URL=redis://:${alnum(24)}@cache.internal:6379/0`],
  ['database_url', 'database-url', `amqps://worker:${alnum(18)}@mq.internal/vhost`],
  [
    'url_credentials',
    'url-credentials',
    `git clone https://deploy:${alnum(20)}@git.internal.corp/team/repo.git`,
  ],
  ['basic_auth', 'curl-basic-auth', `curl -u admin:${alnum(14)}! https://api.internal.corp/v1/items`],
  ['auth_header', 'authorization-header', `Authorization: Bearer ${random(`${URLSAFE}.`, 48)}`],
  ['auth_header', 'curl-api-key-header', `curl -H "X-Api-Key: ${alnum(32)}" https://api.vendor.io/v2/data`],
  ['generic_secret', 'generic-secret-assignment', `DB_PASSWORD="${alnum(10)}#${digits(3)}"`],
  ['generic_secret', 'generic-secret-assignment', `{"client_secret": "${alnum(40)}"}`],
  ['generic_secret', 'generic-secret-assignment', `signing_key: ${b64(44)}`],
  ['generic_secret', undefined, `mysqladmin status --password=${alnum(15)}7`],
]

/** Look-alikes that must not be reported at all. */
const LOOKALIKES: Array<[string, string]> = [
  ['masked GitHub token', `${P.ghp}${'x'.repeat(36)}`],
  ['alphabet-run GitHub token', `${P.ghp}abcdefghijklmnopqrstuvwxyz0123456789`],
  ['AWS documentation key', `${P.akia}IOSFODNN7EXAMPLE`],
  ['AWS key id inside a longer word', `TODAYINASIA${'ASACKOFRICEFELLOVER'}`],
  ['Google key made of the alphabet', `${P.aizasy}abcdefghijklmnopqrstuvwxyz1234567`],
  ['Anthropic key with the wrong ending', `${P.skAnt}api03-${random(URLSAFE, 93)}BB`],
  ['Claude Code token that is too short', `${P.skAnt}oat01-${random(URLSAFE, 92)}`],
  ['short Slack token', `${P.xoxb}12345-abcd234`],
  ['identifier that starts hf_', '-(id)hf_requiredCharacteristicTypesForDisplayMetadata;'],
  ['PEM block without a body', '-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----'],
  ['public key', pem('PUBLIC KEY')],
  ['certificate', pem('CERTIFICATE')],
  [
    'three segments whose header has no alg',
    `${base64url('{"foo":1}')}.${base64url('{"bar":2}')}.${alnum(20)}`,
  ],
  ['placeholder database password', 'postgres://user:password@localhost:5432/db'],
  ['database password from a variable', `postgres://app:\${DB_PASSWORD}@db:5432/app`],
  ['documentation URL credentials', 'https://abc:xyz@example.com/path'],
  ['same user and password', 'amqp://guest:guest@localhost/'],
  ['curl with variables', 'curl -u "$USERNAME:$PASSWORD" https://api.example.com'],
  ['curl with a placeholder', 'curl -u user:pass https://api.internal.corp'],
  ['bearer from a variable', 'curl -H "Authorization: Bearer $API_KEY" https://api.openai.com/v1/models'],
  ['bearer placeholder', 'Authorization: Bearer <your-token-here>'],
  ['masked bearer', 'Authorization: Bearer XXXXXXXXXXXXXXXX'],
  ['changeme password', 'password = "changeme"'],
  ['templated api key', 'api_key = "<your-api-key>"'],
  ['env reference', `token: \${GITHUB_TOKEN}`],
  ['code reference', 'secret = os.environ["APP_SECRET"]'],
  ['function call', 'const token = await getAccessToken(session)'],
  ['password hash field', `password_hash = "${hex(64)}"`],
  ['public key field', `public_key = "${alnum(43)}"`],
  ['csrf token', `csrf_token = "${alnum(32)}"`],
  ['token count', 'max_tokens: 4096, "total_tokens": 1532'],
  ['identifier value', 'secretName = "prod-database-credentials"'],
  ['client id uuid', `clientId = "${crypto.randomUUID()}"`],
  ['Stripe publishable key', `pk_${'live_'}${alnum(99)}`],
  ['prose about secrets', 'The password must be at least 12 characters long and the API key lives in Vault.'],
  ['git commit', `commit ${hex(40)}\nAuthor: Dev <dev@example.com>`],
  ['sha256 digest', `sha256:${hex(64)}`],
  ['uuid in prose', `request ${crypto.randomUUID()} failed after 3 retries`],
  ['image data URI', `data:image/png;base64,${b64(400)}`],
  ['version pinned', 'api_version = "2024-06-01", sdk_key_version: 3.2.1'],
  ['passphrase that is prose', 'passphrase: "Password used to generate key"'],
]

describe('detects each kind', () => {
  for (const [kind, rule, text] of POSITIVES) {
    it(`${kind}${rule ? ` (${rule})` : ''}`, () => {
      const findings = scanText(text)
      const hit = findings.find((f) => f.type === kind && (!rule || f.detail?.rule === rule))
      assert.ok(
        hit,
        `expected ${kind}/${rule}, got [${findings.map((f) => `${f.type}/${f.detail?.rule}`).join(', ')}]`,
      )
      assert.ok(hit.span && hit.span.end > hit.span.start)
      assert.ok(hit.score >= 0.5 && hit.score <= 1)
    })
  }
})

describe('ignores look-alikes', () => {
  for (const [name, text] of LOOKALIKES) {
    it(name, () => {
      assert.deepEqual(kindsIn(text), [])
    })
  }
})

describe('findings', () => {
  it('never carry the secret itself', () => {
    const secret = `${P.skLive}${alnum(40)}`
    const [finding] = scanText(`key ${secret}`)
    assert.ok(!JSON.stringify(finding).includes(secret))
  })

  it('point at the secret, not at the name it is assigned to', () => {
    const value = alnum(40)
    const text = `{"client_secret": "${value}"}`
    const [finding] = scanText(text)
    assert.equal(text.slice(finding.span!.start, finding.span!.end), value)
  })

  it('keep only the password of a database URL', () => {
    const password = alnum(18)
    const text = `postgres://app:${password}@db.internal:5432/app`
    const [finding] = scanText(text)
    assert.equal(text.slice(finding.span!.start, finding.span!.end), password)
  })

  it('find a password that contains @ in a URL', () => {
    const text = 'postgres://app:p4ss@w0rd-9x@db.internal/app'
    const [finding] = scanText(text)
    assert.equal(text.slice(finding.span!.start, finding.span!.end), 'p4ss@w0rd-9x')
  })

  it('levels: private keys and live keys are restricted, JWTs and test keys confidential', () => {
    const level = (text: string) => scanText(text)[0]?.level
    assert.equal(level(pem('RSA PRIVATE KEY')), 'restricted')
    assert.equal(level(`${P.skLive}${alnum(40)}`), 'restricted')
    assert.equal(level(`${P.skTest}${alnum(40)}`), 'confidential')
    assert.equal(level(jwt()), 'confidential')
    assert.equal(level(`AWS_ACCESS_KEY_ID=${P.akia}${random(B32, 16)}`), 'confidential')
  })

  it('report one finding when a vendor rule and a context rule see the same token', () => {
    const token = `${P.skProj}${alnum(74)}${P.openaiMark}${alnum(74)}`
    const findings = scanText(`curl https://api.openai.com -H "Authorization: Bearer ${token}"`)
    assert.deepEqual(
      findings.map((f) => f.type),
      ['openai_api_key'],
    )
  })

  it('find several secrets of different kinds in one text, in order', () => {
    const text = [
      `AWS_ACCESS_KEY_ID=${P.akia}${random(B32, 16)}`,
      `GITHUB_TOKEN=${checksummed(P.ghp)}`,
      `DATABASE_URL=postgres://app:${alnum(20)}@db:5432/app`,
    ].join('\n')
    assert.deepEqual(kindsIn(text), ['aws_access_key_id', 'github_token', 'database_url'])
  })
})
