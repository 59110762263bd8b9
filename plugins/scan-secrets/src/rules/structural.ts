/**
 * Secrets recognised by their structure rather than a vendor prefix: private
 * key blocks, JWTs, passwords inside URLs, credentials on curl command lines
 * and in Authorization headers.
 */
import { effectiveEntropyThreshold, shannonEntropy } from '../entropy.js'
import { isPlaceholder } from '../placeholder.js'
import { PRIORITY, patternRule, type RuleVerdict, type SecretRule } from '../rule.js'
import { decodeBase64, printableRatio } from '../validators.js'

/** Base64 characters in a PEM body, ignoring line breaks (real or JSON-escaped) and RFC 1421 headers. */
function pemBodyLength(block: string): number {
  const body = block
    .replace(/^-----BEGIN[^\n\\]*?-----/, '')
    .replace(/-----END[\s\S]*$/, '')
    .replace(/\\[nr]/g, '\n')
    .replace(/^[\w-]+:.*$/gm, '')
  let count = 0
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47) count++
  }
  return count
}

const pemBody =
  (min: number, score: number): SecretRule['validate'] =>
  (secret) =>
    pemBodyLength(secret) >= min ? { score } : false

/** A JWT header must decode to JSON naming an algorithm. */
function validateJwt(secret: string): RuleVerdict {
  const [header, payload, signature] = secret.split('.')
  const decoded = decodeBase64(header)
  if (decoded === undefined || !decoded.includes('"alg"')) {
    // Header and claims both base64 of a JSON object (`eyJ` = `{"`) and a signature: the shape of a JWT whose
    // header is mangled or not base64 of what it claims; still a token that was pasted, kept with less confidence.
    return payload?.startsWith('eyJ') && payload.length >= 16 && (signature?.length ?? 0) >= 16
      ? { score: 0.6 }
      : false
  }
  let score = 0.8
  try {
    const parsed: unknown = JSON.parse(decoded)
    if (parsed && typeof parsed === 'object' && typeof (parsed as { alg?: unknown }).alg === 'string')
      score = 0.95
  } catch {
    // A header that only resembles JSON is still a token someone pasted; keep it with less confidence.
  }
  const body = decodeBase64(payload)
  if (body === undefined || printableRatio(body) < 0.7) score -= 0.15
  return { score }
}

/** A password or token taken from a URL or command line must not be a placeholder or a variable. */
function credentialVerdict(value: string, score: number, minEntropy = 2): RuleVerdict {
  const v = safeDecodeUri(value)
  if (v.length < 4 || isPlaceholder(v, 'strict')) return false
  if (/^\d{1,5}$/.test(v)) return false
  if (shannonEntropy(v) < effectiveEntropyThreshold(v.length, minEntropy)) return false
  return { score }
}

function safeDecodeUri(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** Hosts reserved for documentation (RFC 2606): credentials in their URLs are examples. */
const DOCUMENTATION_HOST = /^(?:[\w-]+\.)*example\.(?:com|org|net)$|\.(?:example|invalid|test)$/i

/** The password of a URL's userinfo; `match.index` is where the URL starts. */
function validateUrlPassword(
  user: string,
  password: string,
  match: RegExpExecArray,
  score: number,
): RuleVerdict {
  const at = match.index + match[0].length
  const host = /^[\w.-]+/.exec(match.input.slice(at))?.[0] ?? ''
  if (user && user === password) return false
  if (DOCUMENTATION_HOST.test(host)) {
    // Documentation examples use words (`password`, `secret`); a password that mixes cases, digits and
    // symbols was written to look real (or pasted from a real config with the host renamed): keep it lower.
    const decoded = safeDecodeUri(password)
    const strong =
      decoded.length >= 8 && /\d/.test(decoded) && /[a-z]/.test(decoded) && /[A-Z]|[^A-Za-z0-9]/.test(decoded)
    return strong ? credentialVerdict(password, 0.7, 3) : false
  }
  return credentialVerdict(password, score)
}

/** `user:password` from a curl `-u` argument, quotes removed; the password, or the user when it is a bare token. */
/** How far back from `-u` the `curl` of its command may be (continued lines included). */
const CURL_WINDOW = 2000

/** Continued lines a curl command may span before its `-u`. */
const CURL_MAX_LINES = 32

/**
 * True when `-u` at `at` belongs to a curl command: `curl` as a word on its
 * line or on the backslash-continued lines before it (at most
 * {@link CURL_MAX_LINES} lines and {@link CURL_WINDOW} characters back). Lines
 * are checked newest first, so a command costs about its own length.
 */
function isCurlCommand(text: string, at: number): boolean {
  // A bounded window: searching the whole text for the previous newline would cost O(n) per option.
  const window = text.slice(Math.max(0, at - CURL_WINDOW), at)
  let end = window.length
  for (let line = 0; line < CURL_MAX_LINES && end > 0; line++) {
    const newline = window.lastIndexOf('\n', end - 1)
    if (hasCurlWord(window, newline + 1, end)) return true
    // A line ending in a backslash continues the command; anything else ends the look-back.
    const continued =
      newline > 0 &&
      (window[newline - 1] === '\\' || (window[newline - 1] === '\r' && window[newline - 2] === '\\'))
    if (!continued) return false
    end = newline
  }
  return false
}

/** `curl` as a word within [start, end). */
function hasCurlWord(text: string, start: number, end: number): boolean {
  for (
    let i = text.lastIndexOf('curl', end - 4);
    i >= start;
    i = i > 0 ? text.lastIndexOf('curl', i - 1) : -1
  ) {
    if (!isWordChar(text.charCodeAt(i - 1)) && !isWordChar(text.charCodeAt(i + 4))) return true
  }
  return false
}

function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
  )
}

function validateCurlUser(secret: string): RuleVerdict {
  const cred = secret.replace(/^["']|["']$/g, '')
  if (isPlaceholder(cred, 'basic')) return false
  const colon = cred.indexOf(':')
  if (colon < 0) return false
  const strip = (s: string) => s.replace(/^["']|["']$/g, '')
  const user = strip(cred.slice(0, colon))
  const password = strip(cred.slice(colon + 1))
  if (!password) return user ? credentialVerdict(user, 0.8, 2.5) : false
  if (user && isPlaceholder(user, 'basic') && isPlaceholder(password, 'basic')) return false
  if (user === password) return false
  return credentialVerdict(password, 0.85)
}

/** The credential of an Authorization header; Basic credentials must decode to `user:password`. */
function validateAuthorization(secret: string, match: RegExpExecArray): RuleVerdict {
  const scheme = (match.groups?.scheme ?? '').toLowerCase()
  if (isPlaceholder(secret, 'strict')) return false
  if (scheme === 'basic') {
    const decoded = decodeBase64(secret)
    if (decoded === undefined) return false
    return decoded.includes(':') && printableRatio(decoded) > 0.9 ? { score: 0.9 } : { score: 0.6 }
  }
  if (shannonEntropy(secret) < effectiveEntropyThreshold(secret.length, 2.75)) return false
  return { score: 0.85 }
}

const DB_SCHEMES =
  'postgres(?:ql)?|mysql[x2]?|mariadb|mongodb(?:\\+srv)?|rediss?|valkey|amqps?|mssql|sqlserver|oracle|cockroach(?:db)?|clickhouse|couchdbs?|neo4j(?:\\+s|\\+ssc)?|bolt|cassandra|memcached|nats|mqtts?|kafka|snowflake|db2|jdbc:[a-z0-9]+(?::[a-z0-9]+)?|r2dbc:[a-z0-9]+|sqlalchemy'

/** `://`, also JSON-escaped (`:\/\/`). */
const SLASHES = String.raw`:(?://|\\/\\/)`
/** The host after the userinfo, then the end of the authority. */
const HOST_AHEAD = String.raw`@(?=[\w.\[\]%-]+(?:[:/?#\s'"\x60<>,;)\\]|$))`
/** The password may contain `@`: it ends at the `@` that is followed by a host. */
const PASSWORD = String.raw`[^/\s'"\x60<>]{1,200}?`
const USER = String.raw`[^:@/\s'"\x60<>]*`

export const STRUCTURAL_RULES: readonly SecretRule[] = [
  patternRule({
    id: 'private-key',
    kind: 'private_key',
    keywords: ['-----begin'],
    pattern:
      '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?!-----BEGIN)[\\s\\S]){0,32000}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----',
    placeholders: 'none',
    score: 1,
    validate: pemBody(64, 1),
  }),
  // A key cut short (a truncated paste, a model that stopped mid-answer) still leaks most of the key.
  patternRule({
    id: 'private-key-truncated',
    kind: 'private_key',
    keywords: ['-----begin'],
    pattern: '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\\s\\\\]{64,16384}',
    placeholders: 'none',
    priority: PRIORITY.structural - 1,
    validate: pemBody(64, 0.9),
  }),
  // A private key pasted without its armour: the body's first line starts with the DER of a private key
  // (PKCS#1 RSA `30 82 .. .. 02 01 00 02 82`, PKCS#8 RSA / EC / Ed25519, SEC1 EC P-256 / P-384); public keys
  // and certificates start otherwise. The base64 lines after it belong to it. Inside armour the rules above report.
  patternRule({
    id: 'private-key-body',
    kind: 'private_key',
    keywords: [
      'ibaakc',
      'ibaakb',
      'ibadanbgkqhkig9w0baqef',
      'ageambmgbyqgsm49',
      'mc4caqawbqydk2vwbciei',
      'mhccaqeei',
      'migkagebbda',
    ],
    pattern:
      '(?<![A-Za-z0-9+/])(?<secret>(?:MII[A-Za-z0-9+/]{3}IBA(?:AK[BC]|DANBgkqhkiG9w0BAQEF)|MI[GH][A-Za-z0-9+/]AgEAMBMGByqGSM49AgE|MC4CAQAwBQYDK2VwBCIEI|MHcCAQEEI|MIGkAgEBBDA)[A-Za-z0-9+/]{24,}={0,2}(?:\\\\?\\r?\\n[A-Za-z0-9+/]{4,80}={0,2}){0,200})',
    placeholders: 'none',
    priority: PRIORITY.structural - 2,
    score: 0.9,
    validate: (_secret, match) =>
      match.input.lastIndexOf('-----BEGIN', match.index) > match.input.lastIndexOf('-----END', match.index)
        ? false
        : { score: 0.9 },
  }),
  patternRule({
    id: 'putty-private-key',
    kind: 'private_key',
    keywords: ['putty-user-key-file'],
    pattern: 'PuTTY-User-Key-File-\\d:[\\s\\S]{0,20000}?Private-MAC:\\s*[0-9a-f]+',
    placeholders: 'none',
    score: 1,
  }),
  patternRule({
    id: 'jwt',
    kind: 'jwt',
    keywords: ['eyj'],
    pattern: '(?<![A-Za-z0-9_\\-+/])(?<secret>eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*)',
    placeholders: 'none',
    validate: validateJwt,
  }),
  patternRule({
    id: 'database-url',
    kind: 'database_url',
    keywords: [
      'postgres',
      'mysql',
      'mariadb',
      'mongodb',
      'redis',
      'valkey',
      'amqp',
      'mssql',
      'sqlserver',
      'oracle',
      'cockroach',
      'clickhouse',
      'couchdb',
      'neo4j',
      'bolt',
      'cassandra',
      'memcached',
      'nats',
      'mqtt',
      'kafka',
      'snowflake',
      'db2',
      'jdbc',
      'r2dbc',
    ],
    pattern: String.raw`\b(?:${DB_SCHEMES})(?:\+[a-z0-9]+)?${SLASHES}(?<user>${USER}):(?<secret>${PASSWORD})${HOST_AHEAD}`,
    flags: 'i',
    placeholders: 'none',
    score: 0.95,
    validate: (secret, match) => validateUrlPassword(match.groups?.user ?? '', secret, match, 0.95),
  }),
  patternRule({
    id: 'url-credentials',
    kind: 'url_credentials',
    keywords: ['://', ':\\/\\/'],
    // Any scheme (`smb://`, `nats://`, `sip://`, `jdbc:…://`): the user:password@ part is the credential wherever it is.
    // Database schemes are left to database-url (one finding per URL).
    pattern: `(?<![a-z0-9+.-])(?!(?:${DB_SCHEMES}|mysql|r2dbc|jdbc)${SLASHES})[a-z][a-z0-9+.-]{1,24}${SLASHES}(?<secret>${USER}:${PASSWORD})${HOST_AHEAD}`,
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.contextual,
    validate: (secret, match) => {
      const colon = secret.indexOf(':')
      return validateUrlPassword(secret.slice(0, colon), secret.slice(colon + 1), match, 0.85)
    },
  }),
  // curl -u / --user user:password, possibly on a continued line of the same command.
  patternRule({
    id: 'curl-basic-auth',
    kind: 'basic_auth',
    keywords: ['curl'],
    pattern:
      '(?<=\\s)(?:-u|--user)(?:=|[ \\t]{1,5})["\']?(?<secret>"[^"\\n]{1,200}"(?::"[^"\\n]{0,200}")?|\'[^\'\\n]{1,200}\'|[^\\s"\'|;&]{1,200}?(?::(?:"[^"\\n]{0,200}"|\'[^\'\\n]{0,200}\'))?)["\']?(?=\\s|$)',
    placeholders: 'none',
    priority: PRIORITY.contextual,
    // The option is matched on its own and the command looked up behind it: a look-ahead from
    // every `curl` to its `-u` would cost the whole window per occurrence of the word.
    validate: (secret, match) => (isCurlCommand(match.input, match.index) ? validateCurlUser(secret) : false),
  }),
  patternRule({
    id: 'mysql-cli-password',
    kind: 'basic_auth',
    keywords: ['mysql', 'mariadb'],
    pattern:
      '\\b(?:mysql|mysqldump|mysqladmin|mariadb)\\b[^\\n]{0,300}?\\s-p(?<secret>[^\\s\'"-][^\\s\'"]{3,100})',
    placeholders: 'none',
    priority: PRIORITY.contextual,
    validate: (secret) => credentialVerdict(secret, 0.8),
  }),
  patternRule({
    id: 'authorization-header',
    kind: 'auth_header',
    keywords: ['authorization'],
    pattern:
      '\\b(?:proxy-)?authorization\\\\?["\']?\\s*[:=]\\s*\\\\?["\']?(?:(?<scheme>bearer|basic|token|api-?token|apikey|api-key|bot|sso-key|key|otoken|pat)\\s+)?(?<secret>[A-Za-z0-9_~+/=.@:-]{8,4000})',
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.contextual,
    validate: validateAuthorization,
  }),
  // API-key headers passed to curl: -H "X-Api-Key: …", --header 'Token: …'.
  patternRule({
    id: 'curl-api-key-header',
    kind: 'auth_header',
    keywords: ['-h', '--header'],
    pattern:
      '(?:\\s-H|--header)(?:=|[ \\t]{1,5})["\'](?<name>[\\w-]*(?:api-?key|token|secret|access-?key|auth)[\\w-]*)\\s*:\\s*(?<secret>[A-Za-z0-9_~+/=.@:-]{8,4000})["\']',
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.contextual,
    validate: (secret) => {
      if (isPlaceholder(secret, 'strict')) return false
      if (shannonEntropy(secret) < effectiveEntropyThreshold(secret.length, 2.75)) return false
      return { score: 0.8 }
    },
  }),
]
