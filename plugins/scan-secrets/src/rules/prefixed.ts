/**
 * Provider tokens added in 0.3.0, from the providers' documentation and the
 * shapes public scanners (trufflehog, gitleaks) use for them: prefixes that
 * are distinctive on their own (`aio_`, `apify_api_`, `VF.DM.`, `tkn.v1_`,
 * `pat-na1-<uuid>`), shapes of older rules widened to what the providers issue
 * (Pulumi and Buildkite base36 bodies, Postman keys without the inner dash),
 * webhook URLs that are credentials by themselves (Zapier, Tines), and
 * registry credentials in Docker's `config.json` (`"auth": base64(user:pass)`)
 * and `docker login -p`.
 */
import { PRIORITY, patternRule, type SecretRule, TOKEN_RUN_CHARS, tokenRule } from '../rule.js'
import { decodeBase64, hasDigitAndLetter } from '../validators.js'

/** A UUID written in lower-case hex, as HubSpot and LaunchDarkly embed it. */
const UUID_LOWER = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** Keeps a token whose random part mixes letters and digits (a run of one letter is a placeholder). */
const randomBody = (prefixLength: number) => (secret: string) =>
  hasDigitAndLetter(secret.slice(prefixLength)) ? { score: 0.9 } : false

export const PREFIXED_RULES: readonly SecretRule[] = [
  // Adafruit IO keys: `aio_` + 28 base62 (io.adafruit.com "My Key").
  tokenRule({
    id: 'adafruit-io-key',
    kind: 'devtools_token',
    keywords: ['aio_'],
    body: 'aio_[A-Za-z0-9]{28}',
    minEntropy: 3.5,
    validate: randomBody(4),
  }),
  // Apify API tokens: `apify_api_` + 36.
  tokenRule({
    id: 'apify-api-token',
    kind: 'devtools_token',
    keywords: ['apify_api_'],
    body: 'apify_api_[A-Za-z0-9_-]{36}',
    minEntropy: 3.5,
  }),
  // Bannerbear project and master keys.
  tokenRule({
    id: 'bannerbear-api-key',
    kind: 'saas_api_key',
    keywords: ['bb_pr_', 'bb_ma_'],
    body: 'bb_(?:pr|ma)_[a-f0-9]{30}',
    minEntropy: 3,
    validate: randomBody(6),
  }),
  // Bitbucket Data Center HTTP access tokens: `BBDC-` + 44 base64.
  tokenRule({
    id: 'bitbucket-datacenter-token',
    kind: 'devtools_token',
    keywords: ['bbdc-'],
    body: 'BBDC-[A-Za-z0-9+/@_-]{44}',
    minEntropy: 3.5,
  }),
  // Buildkite user access tokens are `bkua_` + 40 base36 (the hex-only rule in code.ts missed most).
  tokenRule({
    id: 'buildkite-user-token',
    kind: 'devtools_token',
    keywords: ['bkua_'],
    body: 'bkua_[a-z0-9]{40}',
    minEntropy: 3.5,
    validate: randomBody(5),
  }),
  // Cloudflare user API keys in the `cfk_` format.
  tokenRule({
    id: 'cloudflare-cfk-key',
    kind: 'cloud_platform_token',
    keywords: ['cfk_'],
    body: 'cfk_[A-Za-z0-9]{40,56}',
    minEntropy: 3.5,
    validate: randomBody(4),
  }),
  // Dropbox short-lived access tokens: `sl.` + 130–140.
  tokenRule({
    id: 'dropbox-short-lived-token',
    kind: 'saas_api_key',
    keywords: ['sl.'],
    body: 'sl\\.[A-Za-z0-9_-]{130,140}',
    minEntropy: 4,
  }),
  // ElevenLabs keys `sk_` + 48 hex stand alone (the named rule in ai.ts needs the vendor name).
  tokenRule({
    id: 'elevenlabs-sk-key',
    kind: 'llm_api_key',
    keywords: ['sk_'],
    body: 'sk_[a-f0-9]{48}',
    minEntropy: 3,
    score: 0.8,
    validate: randomBody(3),
  }),
  // HubSpot private-app tokens: `pat-na1-` / `pat-eu1-` + UUID.
  tokenRule({
    id: 'hubspot-private-app-token',
    kind: 'saas_api_key',
    keywords: ['pat-na1-', 'pat-eu1-', 'pat-na2-', 'pat-ap1-'],
    body: `pat-(?:na|eu|ap)\\d-${UUID_LOWER}`,
    minEntropy: 3,
  }),
  // LaunchDarkly SDK and mobile keys: `sdk-` / `mob-` + UUID-shaped body.
  tokenRule({
    id: 'launchdarkly-sdk-key',
    kind: 'devtools_token',
    keywords: ['sdk-', 'mob-'],
    body: '(?:sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}',
    minEntropy: 3,
    validate: randomBody(4),
  }),
  // Lob live secret keys: `live_` + 35 hex.
  tokenRule({
    id: 'lob-live-key',
    kind: 'payment_api_key',
    keywords: ['live_'],
    body: 'live_[a-f0-9]{35}',
    minEntropy: 3,
    validate: randomBody(5),
  }),
  // Mapbox secret tokens: `sk.` + dot-separated base64url (public tokens are `pk.`).
  tokenRule({
    id: 'mapbox-secret-token',
    kind: 'saas_api_key',
    keywords: ['sk.'],
    body: 'sk\\.[A-Za-z0-9.-]{80,240}',
    // Keywords common in prose; the token is a run of 83+ token characters.
    run: { chars: TOKEN_RUN_CHARS, min: 83 },
    minEntropy: 3.5,
  }),
  // New Relic license keys end in `NRAL`; mobile app tokens in `-NRMA`.
  tokenRule({
    id: 'newrelic-license-key',
    kind: 'devtools_token',
    keywords: ['nral', '-nrma'],
    // The hex of a license key is sometimes written in capitals; mobile tokens carry 36 to 40 hex after the region.
    body: '[a-fA-F0-9]{36}NRAL|(?:eu01xx|AA)[a-f0-9]{36,40}-NRMA',
    minEntropy: 3,
  }),
  // IEX Cloud secret tokens: `sk_` + 32 hex (publishable ones are `pk_`); BestTime private keys: `pri_` + 32 hex
  // (public ones are `pub_`). Stripe's `sk_live_`/`sk_test_` have their own rule.
  tokenRule({
    id: 'hex-secret-key-prefixed',
    kind: 'saas_api_key',
    keywords: ['sk_', 'pri_'],
    body: '(?:sk|pri)_[a-f0-9]{32}',
    minEntropy: 3,
    validate: randomBody(4),
  }),
  // Rootly API keys: `rootly_` + 64 hex.
  tokenRule({
    id: 'rootly-api-key',
    kind: 'devtools_token',
    keywords: ['rootly_'],
    body: 'rootly_[a-f0-9]{64}',
    minEntropy: 3,
    validate: randomBody(7),
  }),
  // Postman API keys: `PMAK-` + 59 (documented form with a dash: 24 hex, 34 hex; older keys are one run).
  tokenRule({
    id: 'postman-api-key-run',
    kind: 'devtools_token',
    keywords: ['pmak-'],
    body: 'PMAK-[A-Za-z0-9]{59}',
    minEntropy: 3.5,
  }),
  // Pulumi access tokens: `pul-` + 40 base36 (older rule accepted hex only).
  tokenRule({
    id: 'pulumi-access-token',
    kind: 'cloud_platform_token',
    keywords: ['pul-'],
    body: 'pul-[a-z0-9]{40}',
    minEntropy: 3.5,
    validate: randomBody(4),
  }),
  // SaladCloud API keys.
  tokenRule({
    id: 'saladcloud-api-key',
    kind: 'cloud_platform_token',
    keywords: ['salad_cloud_'],
    body: 'salad_cloud_(?:user|org)_[A-Za-z0-9]{40,60}',
    minEntropy: 3.5,
  }),
  // Sourcegraph Cody gateway / enterprise tokens: `slk_` + 64 hex.
  tokenRule({
    id: 'sourcegraph-slk-token',
    kind: 'devtools_token',
    keywords: ['slk_'],
    body: 'slk_[a-f0-9]{64}',
    minEntropy: 3,
  }),
  // Tailscale keys: `tskey-` + type + random (`tskey-api-k123…-…`, `tskey-auth-…`, older `tskey-<random>`).
  tokenRule({
    id: 'tailscale-key',
    kind: 'cloud_platform_token',
    keywords: ['tskey-'],
    body: 'tskey-[A-Za-z0-9_-]{20,200}',
    minEntropy: 3.5,
    validate: randomBody(6),
  }),
  // Teamwork (CRM, Desk, Spaces) API tokens: `tkn.v1_` + base64.
  tokenRule({
    id: 'teamwork-token',
    kind: 'saas_api_key',
    keywords: ['tkn.v1_'],
    body: 'tkn\\.v1_[A-Za-z0-9+/]{60,120}={0,2}',
    minEntropy: 4,
  }),
  // Typeform personal tokens are `tfp_` + 40 to 59 (the older rule wanted exactly 59).
  tokenRule({
    id: 'typeform-token-short',
    kind: 'saas_api_key',
    keywords: ['tfp_'],
    body: 'tfp_[A-Za-z0-9_.=-]{40,58}',
    minEntropy: 3.5,
  }),
  // Voiceflow API keys: `VF.DM.` / `VF.WS.` + 24 hex object id + 16.
  tokenRule({
    id: 'voiceflow-api-key',
    kind: 'llm_api_key',
    keywords: ['vf.dm.', 'vf.ws.'],
    body: 'VF\\.(?:DM|WS)\\.[a-f0-9]{24}\\.[A-Za-z0-9]{16}',
    minEntropy: 3.5,
  }),
  // Airtable personal access tokens (`pat` + 14 + `.` + 64 hex) and OAuth access tokens (`oaa…` `.v1.`).
  tokenRule({
    id: 'airtable-pat',
    kind: 'saas_api_key',
    keywords: ['pat'],
    body: 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}',
    // Keywords common in prose; the token is a run of 82+ token characters.
    run: { chars: TOKEN_RUN_CHARS, min: 82 },
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'airtable-oauth-token',
    kind: 'saas_api_key',
    keywords: ['.v1.'],
    body: 'oaa[A-Za-z0-9]{14}\\.v1\\.[A-Za-z0-9_-]{40,1200}(?:\\.[a-f0-9]{16,128})?',
    minEntropy: 4,
  }),
  // Webhook URLs that are credentials by themselves (anyone with the URL can post).
  patternRule({
    id: 'zapier-webhook',
    kind: 'saas_api_key',
    keywords: ['hooks.zapier.com'],
    pattern:
      'https://hooks\\.zapier\\.com/hooks/catch/(?<secret>[A-Za-z0-9]{4,12}/[A-Za-z0-9]{4,16}|[A-Za-z0-9]{16,24})(?![A-Za-z0-9])',
    minEntropy: 3,
    priority: PRIORITY.provider,
  }),
  patternRule({
    id: 'tines-webhook',
    kind: 'saas_api_key',
    keywords: ['tines.com/webhook'],
    pattern: 'https://[\\w-]{1,63}\\.tines\\.com/webhook/(?<secret>[a-z0-9]{32}/[a-z0-9]{32})(?![A-Za-z0-9])',
    minEntropy: 3,
    priority: PRIORITY.provider,
  }),
  // Docker `config.json` (`~/.docker/config.json`, `DOCKER_AUTH_CONFIG`, k8s `.dockerconfigjson`):
  // `"auth": base64("user:password")`, also with escaped quotes.
  patternRule({
    id: 'docker-config-auth',
    kind: 'package_registry_token',
    keywords: ['"auth', 'auth\\'],
    pattern:
      '\\\\{0,7}"auth\\\\{0,7}"[ \\t]{0,4}:[ \\t]{0,4}\\\\{0,7}"(?<secret>[A-Za-z0-9+/]{8,4096}={0,2})\\\\{0,7}"',
    validate: (secret) => {
      const decoded = decodeBase64(secret)
      if (!decoded) return false
      const colon = decoded.indexOf(':')
      // A user, a colon and a non-empty password, all printable.
      if (colon < 1 || colon === decoded.length - 1 || !/^[\x20-\x7e\n\r\t]+$/.test(decoded)) return false
      return { score: 0.9 }
    },
  }),
  // `docker login … -p <password>` / `--password <password>` (the CLI warns about it; CI logs keep it).
  patternRule({
    id: 'docker-login-password',
    kind: 'basic_auth',
    keywords: ['docker login'],
    pattern:
      'docker[ \\t]+login\\b[^\\n]{0,200}?[ \\t](?:-p|--password)[ \\t=]{1,3}["\']?(?<secret>[^\\s"\'$]{6,200})',
    minEntropy: 2.5,
  }),
]
