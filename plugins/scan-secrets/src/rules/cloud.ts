/** Cloud providers and infrastructure platforms. */
import { shannonEntropy } from '../entropy.js'
import { keyedRule, patternRule, type SecretRule, TOKEN_RUN_CHARS, tokenRule } from '../rule.js'
import { notSequential } from '../validators.js'

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'

export const CLOUD_RULES: readonly SecretRule[] = [
  // AWS: the 20-character key id (base32 after a 4-letter type prefix) and the 40-character secret.
  tokenRule({
    id: 'aws-access-key-id',
    kind: 'aws_access_key_id',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    body: '(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}',
    // Keywords common in prose; the token is a run of 20+ token characters.
    run: { chars: TOKEN_RUN_CHARS, min: 20 },
    minEntropy: 3,
    // AWS documentation keys all end in EXAMPLE.
    validate: (secret) => (secret.endsWith('EXAMPLE') ? false : { score: 0.95 }),
  }),
  keyedRule({
    id: 'aws-secret-access-key',
    kind: 'aws_secret_access_key',
    keywords: ['secret_access_key', 'secretaccesskey', 'aws_secret', 'secret-access-key', 'aws_secret_key'],
    names: 'aws_?secret_?(?:access_?)?key|secret_?access_?key|secret-access-key|aws_secret',
    value: '[A-Za-z0-9/+]{40}',
    minEntropy: 4,
    validate: (secret) => (secret.includes('EXAMPLEKEY') ? false : { score: 0.95 }),
  }),
  keyedRule({
    id: 'aws-session-token',
    kind: 'aws_session_token',
    keywords: ['session_token', 'sessiontoken', 'security-token', 'security_token'],
    names: 'aws_?session_?token|sessionToken|x-amz-security-token|security_token',
    // `=` only as padding: with it inside the class, `sessionToken=sessionToken=…` would be one long candidate value per name.
    value: '[A-Za-z0-9/+]{100,2000}={0,2}',
    minEntropy: 4.5,
  }),
  // "ABSK" + base64("BedrockAPIKey-…").
  tokenRule({
    id: 'aws-bedrock-api-key-long-lived',
    kind: 'aws_bedrock_api_key',
    keywords: ['absk'],
    body: 'ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{100,250}={0,2}',
  }),
  // "bedrock-api-key-" + base64("bedrock.amazonaws.com/?Action=…"): a presigned URL.
  tokenRule({
    id: 'aws-bedrock-api-key-short-lived',
    kind: 'aws_bedrock_api_key',
    keywords: ['bedrock-api-key-'],
    body: 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]{40,4000}',
  }),
  // Google API keys (GCP, Gemini / Google AI Studio, Firebase, Maps) all start AIzaSy.
  tokenRule({
    id: 'gcp-api-key',
    kind: 'gcp_api_key',
    keywords: ['aizasy'],
    body: 'AIzaSy[A-Za-z0-9_-]{33}',
    minEntropy: 3.5,
    validate: notSequential(6, 0.95),
  }),
  patternRule({
    id: 'gcp-service-account-key-id',
    kind: 'gcp_service_account',
    keywords: ['private_key_id'],
    pattern: '"private_key_id"\\s*:\\s*"(?<secret>[a-f0-9]{40})"',
    score: 0.95,
  }),
  // The marker alone is not a credential (other APIs use the same words): it scores below the default
  // min_score unless the text also carries a key file's fields. The private key itself is caught by the PEM rule.
  patternRule({
    id: 'gcp-service-account',
    kind: 'gcp_service_account',
    keywords: ['service_account'],
    pattern: '"type"\\s*:\\s*"service_account"',
    level: 'confidential',
    placeholders: 'none',
    validate: (_secret, match) =>
      /"(?:private_key|client_email|client_x509_cert_url)"\s*:/.test(match.input)
        ? { score: 0.8 }
        : { score: 0.45 },
  }),
  // Azure
  patternRule({
    id: 'azure-storage-account-key',
    kind: 'azure_storage_key',
    keywords: ['accountkey'],
    pattern: 'AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)',
    flags: 'i',
    minEntropy: 4.5,
  }),
  keyedRule({
    id: 'azure-storage-key-assignment',
    kind: 'azure_storage_key',
    keywords: ['storage'],
    names: 'azure_?storage[\\w.-]{0,20}?key|storage_?account_?key|storage_?key',
    value: '[A-Za-z0-9+/]{86}==',
    minEntropy: 4.5,
  }),
  patternRule({
    id: 'azure-shared-access-key',
    kind: 'azure_connection_string',
    keywords: ['sharedaccesskey', 'sharedaccesssignature'],
    pattern: 'SharedAccess(?:Key|Signature)\\s*=\\s*(?<secret>[A-Za-z0-9+/%]{40,}={0,2})',
    flags: 'i',
    minEntropy: 4,
  }),
  // A SAS URL: the signature parameter next to the service-version / expiry parameters.
  patternRule({
    id: 'azure-sas-token',
    kind: 'azure_sas_token',
    keywords: ['sig='],
    pattern:
      '[?&;](?:sv|se|sp|sr|st|spr|srt|ss|skoid|sktid)=[^\\s"\'&]*(?:&[\\w%-]+=[^\\s"\'&]*){0,12}&sig=(?<secret>[A-Za-z0-9%+/]{40,}(?:%3[dD]|=){0,2})',
    minEntropy: 4,
  }),
  // Entra ID client secrets: three characters, a digit, "Q~", then 31-34 more.
  patternRule({
    id: 'azure-ad-client-secret',
    kind: 'azure_client_secret',
    keywords: ['q~'],
    pattern:
      '(?<=^|[\\\\\'"`\\s>=:(,)])(?<secret>[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34})(?=$|[\\\\\'"`\\s<),])',
    minEntropy: 3,
  }),
  // Data Factory self-hosted integration runtime key: IR@{guid}@{name}@{region}@{base64}.
  tokenRule({
    id: 'azure-data-factory-shir-key',
    kind: 'azure_connection_string',
    keywords: ['ir@'],
    body: 'IR@[0-9A-Za-z-]{36}@[^@\\s]{1,100}@[0-9A-Za-z=-]{0,40}@[A-Za-z0-9+/]{43}=',
    score: 0.95,
  }),
  keyedRule({
    id: 'azure-devops-pat',
    kind: 'azure_devops_pat',
    keywords: ['azure', 'devops', 'vsts', 'azdo', 'ado_'],
    names: 'azure[_-]?devops|devops|vsts|azdo|ado',
    value: '[a-z2-7]{52}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'azure-devops-pat-v2',
    kind: 'azure_devops_pat',
    keywords: ['azdo'],
    body: '[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}',
    minEntropy: 4,
  }),
  keyedRule({
    id: 'azure-cognitive-services-key',
    kind: 'saas_api_key',
    keywords: ['azure', 'ocp-apim-subscription-key', 'cognitive'],
    names: 'azure[\\w.-]{0,30}?(?:key|secret)|ocp-apim-subscription-key|cognitive[\\w.-]{0,20}?key',
    value: '[a-f0-9]{32}',
    minEntropy: 3,
  }),
  // Alibaba Cloud
  tokenRule({
    id: 'alibaba-access-key-id',
    kind: 'alibaba_access_key',
    keywords: ['ltai'],
    body: 'LTAI[A-Za-z0-9]{20}',
    minEntropy: 3,
    level: 'confidential',
  }),
  keyedRule({
    id: 'alibaba-secret-key',
    kind: 'alibaba_access_key',
    keywords: ['alibaba', 'aliyun'],
    names: 'alibaba|aliyun',
    value: '[A-Za-z0-9]{30}',
    minEntropy: 3.5,
  }),
  // Hosting and infrastructure platforms
  tokenRule({
    id: 'digitalocean-token',
    kind: 'cloud_platform_token',
    keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    body: 'do[opr]_v1_[a-f0-9]{64}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'heroku-api-key-v2',
    kind: 'cloud_platform_token',
    keywords: ['hrku-'],
    body: 'HRKU-AA[0-9A-Za-z_-]{58}',
    minEntropy: 3.5,
  }),
  keyedRule({
    id: 'heroku-api-key',
    kind: 'cloud_platform_token',
    keywords: ['heroku'],
    names: 'heroku',
    value: UUID,
  }),
  tokenRule({
    id: 'flyio-access-token',
    kind: 'cloud_platform_token',
    keywords: ['fo1_', 'fm1', 'fm2_'],
    body: '(?:fo1_[\\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})',
    minEntropy: 4,
  }),
  tokenRule({
    id: 'cloudflare-origin-ca-key',
    kind: 'cloud_platform_token',
    keywords: ['v1.0-'],
    body: 'v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}',
  }),
  keyedRule({
    id: 'cloudflare-api-token',
    kind: 'cloud_platform_token',
    keywords: ['cloudflare', 'cf_api'],
    names: 'cloudflare|cf_api',
    value: '[A-Za-z0-9_-]{40}|[a-f0-9]{37}',
    minEntropy: 3.5,
  }),
  keyedRule({
    id: 'vercel-token',
    kind: 'cloud_platform_token',
    keywords: ['vercel'],
    names: 'vercel',
    value: '[A-Za-z0-9]{24}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'vercel-token-v2',
    kind: 'cloud_platform_token',
    keywords: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    body: 'vc[pirak]_[A-Za-z0-9]{50,60}',
    minEntropy: 4,
  }),
  keyedRule({
    id: 'netlify-access-token',
    kind: 'cloud_platform_token',
    keywords: ['netlify'],
    names: 'netlify',
    value: '[A-Za-z0-9_=-]{40,46}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'netlify-pat',
    kind: 'cloud_platform_token',
    keywords: ['nfp_'],
    body: 'nfp_[A-Za-z0-9]{36}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'supabase-token',
    kind: 'cloud_platform_token',
    keywords: ['sbp_', 'sb_secret_'],
    body: 'sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'render-api-key',
    kind: 'cloud_platform_token',
    keywords: ['rnd_'],
    body: 'rnd_[A-Za-z0-9]{32}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'scalingo-api-token',
    kind: 'cloud_platform_token',
    keywords: ['tk-us-'],
    body: 'tk-us-[\\w-]{48}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'planetscale-token',
    kind: 'cloud_platform_token',
    keywords: ['pscale_'],
    body: 'pscale_(?:tkn|oauth|pw)_[\\w=.-]{32,64}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'pulumi-api-token',
    kind: 'cloud_platform_token',
    keywords: ['pul-'],
    body: 'pul-[a-f0-9]{40}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'doppler-api-token',
    kind: 'cloud_platform_token',
    keywords: ['dp.pt.', 'dp.st.', 'dp.ct.', 'dp.sa.', 'dp.scim.', 'dp.audit.'],
    body: 'dp\\.(?:pt|st|ct|sa|scim|audit)\\.[A-Za-z0-9]{40,44}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'openshift-user-token',
    kind: 'cloud_platform_token',
    keywords: ['sha256~'],
    body: 'sha256~[\\w-]{43}',
    minEntropy: 3.5,
  }),
  keyedRule({
    id: 'linode-token',
    kind: 'cloud_platform_token',
    keywords: ['linode'],
    names: 'linode',
    value: '[a-f0-9]{64}',
    minEntropy: 3,
  }),
  // HashiCorp Vault and Terraform Cloud
  tokenRule({
    id: 'vault-service-token',
    kind: 'vault_token',
    keywords: ['hvs.'],
    body: 'hvs\\.[\\w-]{90,120}',
    minEntropy: 3.5,
  }),
  tokenRule({
    id: 'vault-batch-token',
    kind: 'vault_token',
    keywords: ['hvb.'],
    body: 'hvb\\.[\\w-]{138,300}',
    minEntropy: 4,
  }),
  // Legacy Vault tokens: "s." + 24 alphanumerics, of which real ones always mix digits and letters.
  patternRule({
    id: 'vault-service-token-legacy',
    kind: 'vault_token',
    keywords: ['s.'],
    pattern: '(?<![\\w.$-])(?<secret>s\\.[A-Za-z0-9]{24})(?![\\w.-])',
    // Keywords common in prose; the token is a run of 26+ token characters.
    run: { chars: TOKEN_RUN_CHARS, min: 26 },
    minEntropy: 3.5,
    priority: 40,
    validate: (secret) => {
      const body = secret.slice(2)
      if (!/\d/.test(body) || !/[A-Za-z]/.test(body) || shannonEntropy(body) < 3.5) return false
      return { score: 0.75 }
    },
  }),
  tokenRule({
    id: 'terraform-cloud-token',
    kind: 'vault_token',
    keywords: ['atlasv1'],
    body: '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}',
    minEntropy: 3.5,
  }),
]
