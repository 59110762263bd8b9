/**
 * Coarse families of the `kind` field of secrets-train.jsonl (trufflehog
 * detector names for positives, negative classes for negatives), so that the
 * report has a dozen lines instead of 841.
 */
const FAMILIES: readonly [string, RegExp][] = [
  ['private_key', /private_?key|^ssh|pgp|^pem|putty/],
  ['jwt', /jwt/],
  [
    'connection_url',
    /url$|uri$|jdbc|connection|mongodb|postgres|mysql|redis|rabbitmq|amqp|ftp|ldap|sqlserver/,
  ],
  ['generic_password', /^generic|password|passwd|secret$/],
  [
    'cloud',
    /^(aws|azure|gcp|google|alibaba|ibm|oracle|digitalocean|cloudflare|heroku|linode|vultr|scaleway)/,
  ],
  [
    'code_and_packages',
    /github|gitlab|bitbucket|npm|pypi|docker|nuget|rubygems|artifactory|jfrog|maven|gradle/,
  ],
  ['ai', /openai|anthropic|huggingface|cohere|mistral|groq|replicate|perplexity|pinecone|deepseek|voiceflow/],
  ['chat', /slack|discord|telegram|teams|webex|twilio|sendgrid|mailgun|mailchimp/],
  ['payments', /stripe|square|paypal|braintree|plaid|adyen|shopify|coinbase|bitfinex/],
]

/** The family of a row: its negative class as is, else a provider family or `other_provider`. */
export function kindFamily(kind: string, label: 0 | 1): string {
  if (label === 0) return `neg:${kind}`
  for (const [family, pattern] of FAMILIES) if (pattern.test(kind)) return family
  return 'other_provider'
}
