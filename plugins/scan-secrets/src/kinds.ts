import type { ClassificationLevel } from '@gov/core'

/**
 * Every kind of secret the step reports, with the classification level a
 * finding of that kind carries. A kind is the finding `type`; the rule that
 * fired is in `detail.rule`.
 *
 * Levels: `restricted` for anything that grants access on its own (live API
 * keys and tokens, private keys, passwords in URLs and commands);
 * `confidential` for material that is sensitive but not a working credential
 * by itself, or that the scanner cannot confirm (identifiers that are one half
 * of a key pair, bearer JWTs that are often short-lived, test-mode keys,
 * unverified generic assignments). A rule may lower the level of its own
 * findings (e.g. Stripe test keys); see README.
 */
export const SECRET_KINDS = {
  // Cloud
  aws_access_key_id: { level: 'confidential', family: 'cloud', label: 'AWS access key id' },
  aws_secret_access_key: { level: 'restricted', family: 'cloud', label: 'AWS secret access key' },
  aws_session_token: { level: 'restricted', family: 'cloud', label: 'AWS session token' },
  aws_bedrock_api_key: { level: 'restricted', family: 'cloud', label: 'Amazon Bedrock API key' },
  gcp_api_key: { level: 'restricted', family: 'cloud', label: 'Google API key (GCP, Gemini, Firebase)' },
  gcp_service_account: { level: 'restricted', family: 'cloud', label: 'GCP service-account key file' },
  azure_storage_key: { level: 'restricted', family: 'cloud', label: 'Azure storage account key' },
  azure_connection_string: { level: 'restricted', family: 'cloud', label: 'Azure shared access key' },
  azure_sas_token: { level: 'restricted', family: 'cloud', label: 'Azure SAS signature' },
  azure_client_secret: { level: 'restricted', family: 'cloud', label: 'Azure AD (Entra) client secret' },
  azure_devops_pat: { level: 'restricted', family: 'cloud', label: 'Azure DevOps personal access token' },
  alibaba_access_key: { level: 'restricted', family: 'cloud', label: 'Alibaba Cloud access key' },
  cloud_platform_token: {
    level: 'restricted',
    family: 'cloud',
    label: 'Hosting / infrastructure platform token (DigitalOcean, Heroku, Fly.io, Cloudflare, Vercel, …)',
  },
  vault_token: { level: 'restricted', family: 'cloud', label: 'HashiCorp Vault / Terraform Cloud token' },
  // LLM vendors
  openai_api_key: { level: 'restricted', family: 'llm', label: 'OpenAI (or OpenAI-style sk-) API key' },
  anthropic_api_key: { level: 'restricted', family: 'llm', label: 'Anthropic API key' },
  huggingface_token: { level: 'restricted', family: 'llm', label: 'Hugging Face token' },
  llm_api_key: {
    level: 'restricted',
    family: 'llm',
    label: 'Other LLM vendor key (Cohere, Mistral, Groq, Perplexity, xAI, Replicate, OpenRouter, …)',
  },
  // Code hosting, CI and package registries
  github_token: { level: 'restricted', family: 'code', label: 'GitHub token' },
  gitlab_token: { level: 'restricted', family: 'code', label: 'GitLab token' },
  package_registry_token: { level: 'restricted', family: 'code', label: 'npm / PyPI / RubyGems / … token' },
  devtools_token: {
    level: 'restricted',
    family: 'code',
    label: 'Developer-tool token (CI, observability, issue trackers, …)',
  },
  // Chat
  slack_token: { level: 'restricted', family: 'chat', label: 'Slack token' },
  slack_webhook: { level: 'restricted', family: 'chat', label: 'Slack incoming webhook URL' },
  discord_token: { level: 'restricted', family: 'chat', label: 'Discord bot token or webhook' },
  telegram_bot_token: { level: 'restricted', family: 'chat', label: 'Telegram bot token' },
  teams_webhook: { level: 'restricted', family: 'chat', label: 'Microsoft Teams webhook URL' },
  // Payments and commerce
  stripe_key: { level: 'restricted', family: 'payments', label: 'Stripe secret / restricted key' },
  square_token: { level: 'restricted', family: 'payments', label: 'Square token' },
  paypal_braintree_token: { level: 'restricted', family: 'payments', label: 'PayPal / Braintree token' },
  payment_api_key: { level: 'restricted', family: 'payments', label: 'Other payment or finance API key' },
  shopify_token: { level: 'restricted', family: 'payments', label: 'Shopify token' },
  // Messaging and SaaS
  sendgrid_api_key: { level: 'restricted', family: 'saas', label: 'SendGrid API key' },
  twilio_api_key: { level: 'restricted', family: 'saas', label: 'Twilio API key or auth token' },
  mailgun_api_key: { level: 'restricted', family: 'saas', label: 'Mailgun key' },
  mailchimp_api_key: { level: 'restricted', family: 'saas', label: 'Mailchimp API key' },
  email_api_key: { level: 'restricted', family: 'saas', label: 'Other e-mail service key' },
  atlassian_api_token: { level: 'restricted', family: 'saas', label: 'Atlassian (Jira, Confluence) token' },
  saas_api_key: { level: 'restricted', family: 'saas', label: 'Other SaaS API key' },
  password_manager_secret: { level: 'restricted', family: 'saas', label: '1Password secret' },
  // Credentials in structure
  private_key: {
    level: 'restricted',
    family: 'structural',
    label: 'Private key (PEM, OpenSSH, PGP, PuTTY, age)',
  },
  jwt: { level: 'confidential', family: 'structural', label: 'JSON Web Token' },
  database_url: { level: 'restricted', family: 'structural', label: 'Database URL with a password' },
  url_credentials: {
    level: 'restricted',
    family: 'structural',
    label: 'URL that carries a credential (user:password, session link)',
  },
  basic_auth: { level: 'restricted', family: 'structural', label: 'user:password in a command (curl -u)' },
  auth_header: {
    level: 'restricted',
    family: 'structural',
    label: 'Credential in an Authorization / API-key header',
  },
  generic_secret: {
    level: 'confidential',
    family: 'generic',
    label: 'High-entropy value assigned to a password / secret / token / key',
  },
  high_entropy_string: {
    level: 'confidential',
    family: 'generic',
    label: 'Random-looking token with no name or vendor shape (switch off to report named secrets only)',
  },
} as const satisfies Record<string, { level: ClassificationLevel; family: string; label: string }>

/** A kind id, e.g. `github_token`. */
export type SecretKind = keyof typeof SECRET_KINDS

/** All kind ids, in table order. */
export const SECRET_KIND_IDS = Object.keys(SECRET_KINDS) as SecretKind[]

/** True when `value` is a known kind id. */
export function isSecretKind(value: string): value is SecretKind {
  return Object.hasOwn(SECRET_KINDS, value)
}
