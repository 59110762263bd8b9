/**
 * Placeholder detection: values that sit where a secret would but are not one
 * (`xxxx`, `<your-key>`, `${VAR}`, `changeme`, `abcdef123456`). Documentation,
 * templates and code are full of them, and a gateway that redacts them makes
 * prompts about configuration useless.
 */

/** How hard a rule looks for placeholders. */
export type PlaceholderPolicy = 'basic' | 'strict'

/** References to a variable or template instead of a literal value. */
const TEMPLATE_PATTERNS: readonly RegExp[] = [
  /^\$\{?[A-Za-z_][\w.]*\}?$/, // $VAR ${VAR} ${obj.field}
  /^\$\{\{.*\}\}$/s, // ${{ secrets.X }}
  /\$\{[^}]*\}/, // ${VAR:-default}, `${name}.json`: interpolation anywhere
  /^\{\{.*\}\}$/s, // {{ .Values.x }}
  /^\$\(.*\)$/s, // $(command)
  /^\$\d+$/, // $1
  /^%[A-Za-z_][\w]*%$/, // %VAR%
  /^@[A-Za-z_]+@$/, // @VAR@
  /^<[^<>]*>$/s, // <your key>
  /^\[[^[\]]*\]$/, // [PASSWORD]
  /^\{[A-Za-z_][A-Za-z_\s.-]*\}$/, // {SumoAccessKey}
  /^(?:process\.env|os\.environ|os\.getenv|getenv|env|ENV|secrets|vars|context|settings|config)\b[.[(]/,
]

/** Code instead of a literal (strict policy only: `s.Abc…` is also the shape of a Vault token). */
const CODE_PATTERNS: readonly RegExp[] = [
  /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/, // member access: config.apiKey, opts?.token
  /^[A-Za-z_$][\w$.]*\(.*\)$/s, // function call: getSecret("x")
]

/** Whole values that mean "put the real one here". */
const PLACEHOLDER_WORDS = new Set([
  'password',
  'passwd',
  'pass',
  'pwd',
  'secret',
  'token',
  'apikey',
  'api_key',
  'api-key',
  'key',
  'changeme',
  'change_me',
  'changeit',
  'example',
  'sample',
  'test',
  'testing',
  'dummy',
  'placeholder',
  'redacted',
  'foobar',
  'foo',
  'bar',
  'baz',
  'none',
  'null',
  'nil',
  'undefined',
  'true',
  'false',
  'todo',
  'tbd',
  'user',
  'username',
  'value',
  'string',
  'required',
  'optional',
  'empty',
  'mypassword',
  'yourpassword',
  'secretkey',
  'mysecret',
  'yoursecret',
  'mytoken',
  'yourtoken',
])

/** Fragments that betray a placeholder anywhere in the value (strict policy). */
const PLACEHOLDER_FRAGMENTS =
  /your[_-]?(?:own[_-]?)?(?:api|key|token|secret|pass|app|client|access)|(?:api|secret|access)[_-]?key[_-]?here|_here\b|[_-]here$|insert[_-]?|replace[_-]?(?:me|with|this)|put[_-]?your|placeholder|redacted|dummy|fake|tooshort|example|sample|changeme|change[_-]me|not[_-]?a[_-]?real|notreal|xxxx|\*\*\*|\.\.\.|…|####|passw(?:or)?d/i

/** Runs of one character that only placeholders and masks contain. */
const MASK_RUN = /([xX*#.•])\1{4,}/

/**
 * True when `value` is a placeholder, mask or template rather than a secret.
 * `basic` catches masks (`xxxx`, `****`, one repeated character), templates and
 * variable references; `strict` also catches placeholder words and fragments
 * (`your_api_key`, `changeme`, `example`) and alphabet or digit runs.
 */
export function isPlaceholder(value: string, policy: PlaceholderPolicy): boolean {
  const v = value.trim()
  if (v.length < 3) return true
  if (isSingleCharacter(v)) return true
  if (MASK_RUN.test(v)) return true
  if (/[xX]{4,}/.test(v)) return true
  for (const pattern of TEMPLATE_PATTERNS) if (pattern.test(v)) return true
  if (policy === 'basic') return false
  for (const pattern of CODE_PATTERNS) if (pattern.test(v) && !hasRandomSegment(v)) return true
  const lower = v.toLowerCase()
  if (PLACEHOLDER_WORDS.has(lower)) return true
  // secret123, test1234, changeme!: a placeholder word with a suffix to satisfy a length rule
  if (PLACEHOLDER_WORDS.has(lower.replace(/[\d\W_]+$/, ''))) return true
  if (PLACEHOLDER_FRAGMENTS.test(v)) return true
  // `YOUR_CRON_SECRET`, `MY_TOKEN`, `API_KEY`: the name of a variable written where its value goes.
  if (/^[A-Z]+(?:_[A-Z]+)+$/.test(v)) return true
  if (isSequential(v)) return true
  return false
}

/**
 * A dotted value one of whose segments is random (12+ characters mixing
 * digits, upper and lower case): a multi-part token (`xxxx.yyyy.zzzz`), not a
 * member access such as `config.apiKey`.
 */
function hasRandomSegment(value: string): boolean {
  for (const segment of value.split('.')) {
    if (segment.length < 12) continue
    let digits = 0
    let upper = 0
    let lower = 0
    for (let i = 0; i < segment.length; i++) {
      const c = segment.charCodeAt(i)
      if (c >= 48 && c <= 57) digits++
      else if (c >= 65 && c <= 90) upper++
      else if (c >= 97 && c <= 122) lower++
    }
    if (digits >= 2 && upper >= 2 && lower >= 2) return true
  }
  return false
}

function isSingleCharacter(value: string): boolean {
  const first = value[0]
  for (let i = 1; i < value.length; i++) if (value[i] !== first) return false
  return true
}

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122)
}

/**
 * True when most neighbouring characters step through the alphabet or the
 * digits (`abcdef`, `123456789`, `AbCeFG123`), which random secrets never do.
 */
export function isSequential(value: string): boolean {
  const v = value.toLowerCase()
  let pairs = 0
  let steps = 0
  for (let i = 1; i < v.length; i++) {
    const a = v.charCodeAt(i - 1)
    const b = v.charCodeAt(i)
    if (!isAlnum(a) || !isAlnum(b)) continue
    pairs++
    if (b - a === 1 || (a === 57 && b === 48)) steps++
  }
  return pairs >= 6 && steps / pairs >= 0.5
}
