/**
 * Secrets found by their surroundings rather than by a vendor shape or an
 * assignment: a random token right after words that name it (`my stripe creds
 * are …`, `Here is my imagga key: …`, `Using Key=…`, a `value:` line under
 * `- name: FOO_API_KEY`), and, held to a much higher bar, a random token that
 * stands alone (a key pasted on its own). Both match one token regex, linear
 * in the text; each candidate is judged in time bounded by its capped length
 * and a fixed look-back window.
 */
import { looksLikeLoneSecret, looksLikeNamedSecret } from '../randomness.js'
import { PRIORITY, patternRule, type SecretRule, TOKEN_RUN_CHARS } from '../rule.js'
import { nameWords, VENDOR_PREFIX } from './generic.js'

/** Characters a token may end with; inside it also `.` and `!`, and `=` only as base64 padding at the end. */
const END = 'A-Za-z0-9_+/~$%^*\\-'
/**
 * A token of 12 to 300 characters, not counting a full stop after it (longer
 * runs are data, and the rule skips them whole: the look-behind fails inside a
 * run, so each run costs one bounded attempt).
 */
const TOKEN = `(?<![${END}.!])(?<secret>[${END}.!]{11,299}[${END}]={0,3})(?![${END}=]|[.!][${END}])`
// Every TOKEN match is made of TOKEN_RUN_CHARS only (END, `.`, `!` and the padding `=`).
/** A lone token shorter than this is never reported (see the rule's validator). */
const LONE_MIN = 20

/** Words that name the value after them a secret. */
const SECRET_NOUNS = new Set([
  'key',
  'keys',
  'apikey',
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'creds',
  'credential',
  'credentials',
  'bearer',
  'authorization',
])
const PASSWORD_NOUNS = new Set(['password', 'passwords', 'passwd', 'pwd', 'passphrase'])
/** One-word names that end in a secret noun (`NUGETAPIKEY`, `clickuppersonaltoken`). */
const NOUN_SUFFIX =
  /(?:token|secret|password|passwd|(?:api|access|secret|private|storage|account|signing|master|auth|client|app|licen[sc]e|subscription|service|shared)key)$/

/** Words before the noun that make it something else (`primary key`, `csrf token`, `public key`). */
const NOT_SECRET_BEFORE = new Set([
  'public',
  'publishable',
  'primary',
  'foreign',
  'sort',
  'partition',
  'composite',
  'unique',
  'cache',
  'idempotency',
  'object',
  'hash',
  'row',
  'lookup',
  'map',
  'dict',
  'registry',
  'keyboard',
  'hot',
  'shortcut',
  'csrf',
  'xsrf',
  'page',
  'next',
  'continuation',
  'pagination',
  'cancellation',
  'authenticity',
  'verification',
  'max',
  'num',
  'total',
  'count',
  'special',
  'stop',
  'end',
  'start',
  'eos',
  'bos',
  'pad',
  'unk',
  'input',
  'output',
  'prompt',
  'completion',
  'reasoning',
])

/** Words after the noun that make it the head of something else (`token length`, `key id`, `password file`). */
const NOT_SECRET_AFTER = new Set([
  'id',
  'ids',
  'name',
  'names',
  'type',
  'types',
  'length',
  'size',
  'count',
  'limit',
  'limits',
  'file',
  'path',
  'url',
  'uri',
  'endpoint',
  'header',
  'field',
  'env',
  'variable',
  'var',
  'hash',
  'format',
  'prefix',
  'expiry',
  'expires',
  'ttl',
  'scope',
  'scopes',
  'fingerprint',
  'usage',
  'budget',
  'policy',
  'rotation',
  'version',
  'os',
  'environ',
  'getenv',
  'process',
])

/** Cheap test that a window may hold a secret noun at all. */
const NOUN_NEARBY = /key|token|secret|pass|pwd|cred|bearer|authori/i

/** Words near the value that say it is a digest or an identifier. */
const DIGEST_WORDS = /\b(?:sha\d*|md5|hash|digest|checksum|integrity|commit|fingerprint|etag|uuid|guid)\b/i

/**
 * The last few words before `start` (on its line and the line above), or
 * undefined when they name no secret. Returns whether the noun says password.
 */
function namedBefore(text: string, start: number): { password: boolean } | undefined {
  let from = start
  let newlines = 0
  while (from > 0 && start - from < 80) {
    const c = text.charCodeAt(from - 1)
    if (c === 10 && ++newlines > 1) break
    from--
  }
  const window = text.slice(from, start)
  // Most candidates have no secret noun nearby: one regex test, before any word splitting.
  if (!NOUN_NEARBY.test(window) || DIGEST_WORDS.test(window)) return undefined
  const words = nameWords(window).slice(-6)
  for (let i = words.length - 1; i >= 0 && i >= words.length - 5; i--) {
    const word = words[i]
    if (NOT_SECRET_AFTER.has(word)) return undefined
    if (!SECRET_NOUNS.has(word) && !(word.length > 8 && NOUN_SUFFIX.test(word))) continue
    if (NOT_SECRET_BEFORE.has(words[i - 1] ?? '')) return undefined
    return { password: PASSWORD_NOUNS.has(word) || /pass(?:wd|word)$/.test(word) }
  }
  return undefined
}

/** The candidate token is glued to a URL, a path or a file name: not a value of its own. */
function isInsideLocator(text: string, start: number): boolean {
  const before = text[start - 1]
  if (before === ':' && text[start - 2] !== ' ' && /[\w]/.test(text[start - 2] ?? '')) {
    // `scheme:` or `host:port`; `key:VALUE` (no space) stays a candidate.
    return /(?:https?|ftp|wss?|file|git|ssh|s3|gs|data|urn|sha\d*|md5|h1):$/i.test(
      text.slice(Math.max(0, start - 8), start),
    )
  }
  return false
}

/** Armoured blocks (certificates, public keys, signatures) of the last text seen: their lines are not lone tokens. */
let armouredText: string | undefined
let armoured: readonly (readonly [number, number])[] = []

function insideArmour(text: string, at: number): boolean {
  if (text !== armouredText) {
    armouredText = text
    const ranges: [number, number][] = []
    for (let begin = text.indexOf('-----BEGIN'); begin >= 0; begin = text.indexOf('-----BEGIN', begin + 10)) {
      const end = text.indexOf('-----END', begin)
      ranges.push([begin, end < 0 ? text.length : end])
      if (end < 0) break
      begin = end
    }
    armoured = ranges
  }
  for (const [from, to] of armoured) if (at >= from && at < to) return true
  return false
}

/** Words just before a lone token that say what it is and that it is not secret (`publicKey`, `sha`, `id`). */
const NOT_SECRET_NAMES = new Set([
  'public',
  'publishable',
  'pub',
  'hash',
  'sha',
  'md',
  'digest',
  'checksum',
  'integrity',
  'commit',
  'fingerprint',
  'etag',
  'uuid',
  'guid',
  'nonce',
  'salt',
  'signature',
  'id',
  'ref',
  'revision',
  'rev',
  'sum',
  'csrf',
  'xsrf',
  'authenticity',
  'base',
  'sub',
  'kid',
  // JWK public members: EC coordinates (`n` is left out: it is also the word of a `\\n` escape).
  'x',
  'y',
  'kty',
  'crv',
])

/**
 * The first line of a public key or certificate body, by the DER it starts with: SubjectPublicKeyInfo of RSA
 * (2048+ and 1024 bits), EC (P-256, P-384) and Ed25519 keys, and an X.509 certificate (`30 82 .. .. 30 82 0x ..`).
 */
const PUBLIC_DER_START =
  /^(?:MII[A-Za-z0-9+/]{2}jANBgkqhkiG9w0BAQEFAAOC|MIGfMA0GCSqGSIb3DQEBAQUAA4GN|MFkwEwYHKoZIzj0CAQYI|MHYwEAYHKoZIzj0CAQYF|MCowBQYDK2Vw|MII[A-Za-z0-9+/]{3}CC[A-D])/
/** A line of base64 only (a key or certificate body line). */
const BASE64_LINE = /^[A-Za-z0-9+/]{4,80}={0,2}\r?$/

/**
 * Whether the token at `at` is on a line of a base64 block (consecutive lines of base64 only) whose first
 * line starts a public key or a certificate: the body of a PEM block pasted without its armour.
 */
function insidePublicBody(text: string, at: number): boolean {
  let lineStart = text.lastIndexOf('\n', at - 1) + 1
  for (let lines = 0; lines < 200; lines++) {
    const lineEnd = text.indexOf('\n', lineStart)
    const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd)
    if (!BASE64_LINE.test(line)) return false
    if (PUBLIC_DER_START.test(line)) return true
    if (lineStart === 0) return false
    lineStart = text.lastIndexOf('\n', lineStart - 2) + 1
  }
  return false
}

function namedNotSecret(text: string, start: number): boolean {
  const window = text.slice(Math.max(0, start - 60), start)
  const words = nameWords(window.slice(window.lastIndexOf('\n') + 1)).slice(-4)
  return words.some((w) => NOT_SECRET_NAMES.has(w))
}

/** `<your-key>`, `{{ token }}`, `[PASSWORD]`: the token is the name inside a template slot. */
function isTemplated(text: string, start: number, length: number): boolean {
  const before = text[start - 1]
  const after = text[start + length]
  return (
    (before === '<' && after === '>') ||
    (before === '{' && after === '}') ||
    (before === '[' && after === ']')
  )
}

export const CONTEXT_RULES: readonly SecretRule[] = [
  patternRule({
    id: 'generic-named-value',
    kind: 'generic_secret',
    keywords: ['key', 'token', 'secret', 'pass', 'pwd', 'cred', 'bearer', 'authorization'],
    pattern: TOKEN,
    placeholders: 'none',
    // Below the assignment rule, which checks the name itself: it wins where both match.
    priority: PRIORITY.generic - 1,
    score: 0.75,
    // TOKEN matches 12 characters or more.
    run: { chars: TOKEN_RUN_CHARS, min: 12 },
    validate: (secret, match) => {
      const token = secret
      // Cheapest checks first: most candidates have no secret noun before them (one regex test).
      const named = namedBefore(match.input, match.index)
      if (!named || !looksLikeNamedSecret(token, named.password) || VENDOR_PREFIX.test(token)) return false
      if (isTemplated(match.input, match.index, token.length) || isInsideLocator(match.input, match.index))
        return false
      return { score: 0.75 }
    },
  }),
  patternRule({
    id: 'generic-high-entropy',
    kind: 'high_entropy_string',
    keywords: [],
    pattern: TOKEN,
    placeholders: 'none',
    priority: PRIORITY.generic - 5,
    score: 0.6,
    run: { chars: TOKEN_RUN_CHARS, min: LONE_MIN },
    validate: (secret, match) => {
      const token = secret
      // Lines of an armoured block are the most common lone candidates; the check is a lookup.
      if (token.length < LONE_MIN || insideArmour(match.input, match.index)) return false
      if (!looksLikeLoneSecret(token) || VENDOR_PREFIX.test(token) || token.includes('..')) return false
      if (insidePublicBody(match.input, match.index)) return false
      if (isTemplated(match.input, match.index, token.length) || isInsideLocator(match.input, match.index))
        return false
      return namedNotSecret(match.input, match.index) ? false : { score: 0.6 }
    },
  }),
]
