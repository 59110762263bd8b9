/**
 * Generic secrets: a value assigned to a name that says it is a password,
 * secret, token or key (`DB_PASSWORD=…`, `"client_secret": "…"`,
 * `--api-key …`), kept only when the value is random enough and is not a
 * placeholder, a variable, a path or an identifier.
 */
import { effectiveEntropyThreshold, shannonEntropy } from '../entropy.js'
import { isPlaceholder } from '../placeholder.js'
import { isRandomLetters } from '../randomness.js'
import { PRIORITY, patternRule, type RuleContext, type RuleVerdict, type SecretRule } from '../rule.js'

/** Last words of a name that mark its value as a password. */
const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'pass', 'pw'])

/** Last words of a name that mark its value as a secret. */
const SECRET_WORDS = new Set([
  ...PASSWORD_WORDS,
  'secret',
  'credential',
  'credentials',
  'creds',
  'auth',
  'token',
  'apikey',
  'secretkey',
  // Duo's secret key (`skey` in duo.conf, DUO_SKEY); its `ikey` is an id.
  'skey',
  'accesskey',
  'privatekey',
  'authtoken',
  'accesstoken',
  'apitoken',
  'clientsecret',
  'key',
])

/** A bare `key` is a secret only with one of these before it (`api_key`, `secretKey`, not `sequenceKey`). */
const KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'auth',
  'client',
  'app',
  'application',
  'master',
  'account',
  'encryption',
  'signing',
  'sign',
  'service',
  'license',
  'licence',
  'subscription',
  'consumer',
  'admin',
  'root',
  'session',
  'shared',
  'webhook',
  'integration',
  'security',
  'hmac',
  'jwt',
  'bot',
  'deploy',
  'ingest',
  'write',
  'read',
  'management',
  'server',
  'user',
])

/** Tokens that are not credentials (`csrf_token`, `next_page_token`, `publicToken`). */
const TOKEN_DISQUALIFIERS = new Set([
  'csrf',
  'xsrf',
  'public',
  'publishable',
  'page',
  'next',
  'prev',
  'previous',
  'continuation',
  'pagination',
  'cancel',
  'cancellation',
  'sync',
  'authenticity',
  'verification',
  'max',
  'num',
  'total',
  'count',
  'eos',
  'bos',
  'pad',
  'unk',
  'sep',
  'mask',
  'special',
  'stop',
  'end',
  'start',
])

const isUpper = (c: number) => c >= 65 && c <= 90
const isLower = (c: number) => c >= 97 && c <= 122
const isDigit = (c: number) => c >= 48 && c <= 57

/**
 * Splits an identifier into lower-case words: `OPENAI_API_KEY`, `clientSecret`,
 * `x-api-key`, `CSRFToken` → csrf, token. Trailing digits are dropped
 * (`token3` → token). One pass over character codes: it runs on every
 * candidate's look-back window.
 */
export function nameWords(name: string): string[] {
  const words: string[] = []
  let start = -1
  const flush = (end: number) => {
    if (start < 0) return
    let last = end
    while (last > start && isDigit(name.charCodeAt(last - 1))) last--
    if (last > start) words.push(name.slice(start, last).toLowerCase())
    start = -1
  }
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (!isUpper(c) && !isLower(c) && !isDigit(c)) {
      flush(i)
      continue
    }
    if (start >= 0 && isUpper(c)) {
      const previous = name.charCodeAt(i - 1)
      // aB, 1B: a new word; ABc: the last capital starts the next word.
      if (isLower(previous) || isDigit(previous) || (isUpper(previous) && isLower(name.charCodeAt(i + 1))))
        flush(i)
    }
    if (start < 0) start = i
  }
  flush(name.length)
  return words
}

/** Whether a name marks its value as a secret, and whether as a password. */
export function classifyName(name: string): 'password' | 'secret' | undefined {
  const words = nameWords(name)
  const last = words.at(-1)
  if (!last || !SECRET_WORDS.has(last)) return undefined
  const before = words.at(-2)
  if (last === 'key' && (!before || !KEY_QUALIFIERS.has(before))) return undefined
  if ((last === 'token' || last === 'key') && before && TOKEN_DISQUALIFIERS.has(before)) return undefined
  if (words.includes('public') || words.includes('publishable')) return undefined
  return PASSWORD_WORDS.has(last) ? 'password' : 'secret'
}

/** Values that are not literals of a secret: paths, URLs, file names, versions, identifiers, numbers. */
function isNotSecretLiteral(value: string, password: boolean): boolean {
  if (/^\d+$/.test(value)) return true
  if (/^[A-Za-z_.-]+$/.test(value) && !isRandomLetters(value)) return true
  if (/^(?:[a-z][a-z0-9+.-]*:\/\/|\/|\.\.?\/|~\/|[A-Za-z]:\\)/i.test(value)) return true
  if (
    /^[\w.-]+\.(?:pem|key|p12|pfx|crt|cer|der|json|txt|env|ya?ml|keystore|jks|kdbx|gpg|asc|pub)$/i.test(value)
  )
    return true
  if (/^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/.test(value)) return true
  // Passphrases may hold spaces, but a value made only of words is prose ("Password used to generate key").
  if (/\s/.test(value) && (!password || value.split(/\s+/).every((w) => /^[A-Za-z]+$/.test(w)))) return true
  return false
}

/**
 * Values that start like a vendor token are judged by that vendor's rule alone:
 * when it rejected the shape (`xoxp-1234-…`), the generic rule must not revive it.
 */
export const VENDOR_PREFIX =
  /^(?:xox[abposre][-.]|xapp-|gh[pousr]_|github_pat_|gl(?:pat|ptt|rt|dt|cbt|ft|imt|soat|agent|oas|ffct)-|sk-|[sr]k_(?:live|test|prod)_|AKIA|ASIA|AIza|hf_|api_org_|npm_|pypi-|sq0(?:atp|csp)-|shp(?:at|ca|pa|ss)_|SG\.|do[opr]_v1_|gl(?:c|sa)_|sntry[su]_|hv[sb]\.|ops_|dapi|pul-|pnu_|rdme_|ntn_|lin_api_|PMAK-|ico-|AGE-SECRET-KEY-)/

/** Checks the value of a generic assignment; scores stay below those of vendor rules. */
export function judgeGenericValue(
  rawValue: string,
  kind: 'password' | 'secret',
  ctx: RuleContext,
): RuleVerdict {
  const value = rawValue.trim()
  const password = kind === 'password'
  if (value.length < (password ? 6 : 12) || value.length > 300) return false
  if (isPlaceholder(value, 'strict')) return false
  if (VENDOR_PREFIX.test(value)) return false
  if (isNotSecretLiteral(value, password)) return false
  // People choose passwords: 0.5 bit lower, and 0.8 lower when the value mixes letters and digits
  // (`hunter2hunter`), which identifiers and prose values rarely do.
  const mixed = /\d/.test(value) && /[A-Za-z]/.test(value)
  const threshold = password ? ctx.entropyThreshold - (mixed ? 0.8 : 0.5) : ctx.entropyThreshold
  const entropy = shannonEntropy(value)
  if (entropy < effectiveEntropyThreshold(value.length, threshold)) return false
  let score = 0.6
  if (entropy >= threshold + 0.5) score += 0.1
  if (value.length >= 20) score += 0.1
  return { score }
}

/** A bare value followed by a call, index or member access is code (`require(…)`, `obj?.[…]`), not a literal. */
function isExpression(input: string, valueEnd: number): boolean {
  return /^(?:\?\.|[([.])/.test(input.slice(valueEnd, valueEnd + 2))
}

/** Start of the identifier that ends at `end`: walks back over name characters. */
function nameStart(input: string, end: number): number {
  let start = end
  while (start > 0 && /[A-Za-z0-9_.-]/.test(input[start - 1])) start--
  return start
}

function unquote(value: string): string {
  return value.replace(/^\\?["'`]|\\?["'`]$/g, '')
}

/**
 * Keyword, rest of the name, an assignment (see `ASSIGN` in rule.ts: also `+=`,
 * `.=`, a call `(`, `"name", "value"`, an XML element `>`, a YAML block
 * scalar), then a quoted or bare value.
 */
const ASSIGNMENT = String.raw`(?<kw>pass(?:wd|word|phrase)?|pwd|secrets?|token|key|auth|credentials?|creds)(?<tail>[A-Za-z0-9_.-]{0,30}?)(?:\\{0,2}["'\]]){0,2}[ \t]{0,3}(?<op>[+.?]?=|:{1,3}=|=>|>|:|\(|\|\||,)[ \t]{0,5}(?:[|>][-+]?[ \t]*\r?\n[ \t]{0,10}|(?<=>)\r?\n[ \t]{1,10}(?=[^\s<]))?(?<secret>\\?"[^"\n]{1,300}?\\?"|\\?'[^'\n]{1,300}?\\?'|\x60[^\x60\n]{1,300}\x60|\$?\{[^}\s]{1,100}\}|\$\([^)\n]{1,100}\)|[^\s"'\x60,;&<>|(){}[\]\\]{1,300})`

export const GENERIC_RULES: readonly SecretRule[] = [
  // Django's generated development key: a secret by name and by shape.
  patternRule({
    id: 'django-insecure-secret-key',
    kind: 'generic_secret',
    keywords: ['django-insecure-'],
    pattern: String.raw`["'](?<secret>django-insecure-[^"'\s]{20,250})["']`,
    level: 'restricted',
    placeholders: 'none',
    priority: PRIORITY.provider,
    score: 0.9,
  }),
  // Ansible Vault ciphertext: encrypted, but it carries the vault's secrets to anyone with the password.
  patternRule({
    id: 'ansible-vault',
    kind: 'generic_secret',
    keywords: ['ansible_vault;'],
    pattern: String.raw`\$ANSIBLE_VAULT;\d\.\d;AES256(?:;[\w-]+)?(?:
?
|\n)+[ 	]*[0-9a-f]{32,}(?:(?:
?
|\n)[ 	]*[0-9a-f]{32,})*`,
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.structural,
    score: 0.8,
  }),
  patternRule({
    id: 'generic-secret-assignment',
    kind: 'generic_secret',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cred'],
    pattern: ASSIGNMENT,
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.generic,
    validate: (secret, match, ctx) => {
      const groups = match.groups ?? {}
      const nameEnd = match.index + (groups.kw?.length ?? 0) + (groups.tail?.length ?? 0)
      const start = nameStart(match.input, match.index)
      const kind = classifyName(match.input.slice(start, nameEnd))
      if (!kind || isExpression(match.input, match.index + match[0].length)) return false
      const op = groups.op ?? ''
      // `"name", "value"` is a pair of call arguments only when the name is itself a quoted string;
      // `name(` only passes a literal when it is quoted; `>` assigns only as an XML element `<name>`.
      if (op === ',' && !/["']/.test(match.input[start - 1] ?? '')) return false
      if (op === '(' && !/^\?["'`]/.test(secret)) return false
      if (op === '>' && match.input[start - 1] !== '<') return false
      return judgeGenericValue(unquote(secret), kind, ctx)
    },
  }),
  // Command-line flags: --password …, --api-key=…, -token …
  patternRule({
    id: 'generic-cli-flag',
    kind: 'generic_secret',
    keywords: ['-pass', '-token', '-secret', '-api-key', '-apikey', '-auth-token', '-access-token', '-pwd'],
    pattern: String.raw`(?<![\w-])--?(?<flag>password|passwd|pass|pwd|token|secret|api-?key|access-token|auth-token|client-secret)(?:=|[ \t]+)(?<secret>"[^"\n]{4,200}"|'[^'\n]{4,200}'|[^\s"'|;&]{4,200})`,
    flags: 'i',
    placeholders: 'none',
    priority: PRIORITY.generic,
    validate: (secret, match, ctx) => {
      const flag = (match.groups?.flag ?? '').toLowerCase()
      const kind = /^p(?:ass|wd)/.test(flag) ? 'password' : 'secret'
      return judgeGenericValue(unquote(secret), kind, ctx)
    },
  }),
]
