/**
 * Whether a token reads as machine-generated (a key, a token) rather than as
 * something people write (identifiers, words, paths, versions) or as a known
 * non-secret artefact (digests, UUIDs, lockfile integrity strings, public
 * keys, base64 media). One pass over the token; callers cap its length.
 */
import { effectiveEntropyThreshold, shannonEntropy } from './entropy.js'
import { isPlaceholder } from './placeholder.js'

/** Counts of one token's characters. */
interface Shape {
  readonly upper: number
  readonly lower: number
  readonly digit: number
  readonly other: number
  /** Lower-case letters that are vowels (words have many, random text few). */
  readonly vowels: number
  /** Upper-case letters that are vowels. */
  readonly upperVowels: number
  /** Neighbours whose class differs (letter/digit, upper/lower). */
  readonly switches: number
  /** Longest run of letters of one case (words and identifiers have long ones). */
  readonly longestCaseRun: number
  readonly hexOnly: boolean
}

function shapeOf(token: string): Shape {
  let upper = 0
  let lower = 0
  let digit = 0
  let other = 0
  let vowels = 0
  let upperVowels = 0
  let switches = 0
  let run = 0
  let longestCaseRun = 0
  let hexOnly = true
  let previous = -1
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    let cls: number
    if (c >= 65 && c <= 90) {
      upper++
      cls = 0
      if (c === 65 || c === 69 || c === 73 || c === 79 || c === 85) upperVowels++
      if (c > 70) hexOnly = false
    } else if (c >= 97 && c <= 122) {
      lower++
      cls = 1
      if (c > 102) hexOnly = false
      if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) vowels++
    } else if (c >= 48 && c <= 57) {
      digit++
      cls = 2
    } else {
      other++
      cls = 3
      if (c !== 45) hexOnly = false
    }
    run = cls <= 1 && cls === previous ? run + 1 : cls <= 1 ? 1 : 0
    if (run > longestCaseRun) longestCaseRun = run
    if (previous >= 0 && cls !== previous) switches++
    previous = cls
  }
  return { upper, lower, digit, other, vowels, upperVowels, switches, longestCaseRun, hexOnly }
}

/** A token without its base64 padding (and the `=` of an empty assignment glued to a name). */
function stripPadding(token: string): string {
  let end = token.length
  while (end > 0 && token.charCodeAt(end - 1) === 61) end--
  return end === token.length ? token : token.slice(0, end)
}

function countOf(token: string, chars: string): number {
  let count = 0
  for (let i = 0; i < token.length; i++) if (chars.includes(token[i])) count++
  return count
}

/** Prefixes of things that look random but are not secrets. */
const NOT_SECRET_PREFIX =
  /^(?:sha(?:1|224|256|384|512)[-:]|md5[-:]|h1:|blake2b?[-:]|sri-|pk_(?:live|test)_|AAAA[B-E]|iVBORw0KGgo|R0lGOD|\/9j\/|UklGR|data:|eyJ|PD94|PHN)/

/** Hex digests of the usual lengths, possibly grouped, and UUIDs. */
const DIGEST_OR_UUID =
  /^(?:[0-9a-f]{7,12}|[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{56}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** One part of an identifier: a word or CamelCase words with optional trailing digits, an all-caps word, a short number. */
const IDENTIFIER_PART = /^(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*\d{0,5}|[A-Z]{2,}\d{0,3}|\d{1,5})$/

/**
 * Words and short numbers joined by `_ - . : /`: a code identifier, a file or
 * artefact name, a slug (`DOC_Vector_5_32`, `jjwt-jackson-0.11.2`,
 * `SalesResults-1.2`, `chain_Anvil2_Key`). Random tokens that contain
 * separators mix letters and digits inside their parts.
 */
export function isIdentifierLike(token: string): boolean {
  const parts = token.split(/[-_.:/]+/).filter(Boolean)
  return parts.length >= 2 && parts.every((part) => IDENTIFIER_PART.test(part))
}

/** Legacy and P2SH Bitcoin addresses (base58, public by design). */
const BITCOIN_ADDRESS = /^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/
/**
 * ULIDs: 26 Crockford base32 characters (no I, L, O, U) whose first is at most 7
 * (48 bits of time stamp, then 80 random bits): sortable record ids, not secrets.
 */
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i
/** `1.2.3` or a date stamp `20230412` standing apart from other digits. */
const VERSION_OR_DATE = /\d\.\d+\.\d|(?:^|\D)(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:\D|$)/
/** Base64 of DER: the RSA OID (`BgkqhkiG9w0`), X.509 name attributes (`BgNVBA`, `A1UE`), extensions (`BgNVHQ`), `C=` (`MQswCQYD`). */
const DER_BASE64 = /BgkqhkiG9w0|BgNVB[AH]|MQswCQYD|A1UE[BCDGHKLMT]/
const UUID_INSIDE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i
/** A lower-case or Capitalised word with vowels, as in slugs and URL paths (`dr-elizabeth-green-xylt56z`). */
const WORD_PART = /^[A-Z]?[a-z]{3,}$/

/** Whether one of the token's `-_./:%`-separated parts is a word: then it is a slug, a path or a name. */
function hasWordPart(token: string): boolean {
  for (const part of token.split(/[-_./:%+]+/)) {
    if (part.length < 4 || !WORD_PART.test(part)) continue
    // Four random letters hold two vowels now and then; a longer word part needs fewer.
    if (countOf(part.toLowerCase(), 'aeiouy') / part.length >= (part.length < 6 ? 0.4 : 0.25)) return true
  }
  return false
}

/**
 * A run of letters only that mixes cases throughout and has few vowels, as
 * base52 keys do (`wjXKCFzOWEPRqhTmmbWtVQ`); camelCase identifiers and words
 * have long one-case runs and many vowels.
 */
export function isRandomLetters(token: string): boolean {
  const n = token.length
  if (n < 20 || !/^[A-Za-z]+$/.test(token)) return false
  const s = shapeOf(token)
  if (s.upper < 4 || s.lower < 4 || s.switches < n * 0.35 || s.longestCaseRun > 5) return false
  return countOf(token.toLowerCase(), 'aeiou') / n <= 0.3
}

/** Longest lone token judged (longer runs are data: base64 blobs, minified code). */
const LONE_MAX = 256

/**
 * A token with no context at all: held to a high bar, because prose, code and
 * tool output are full of identifiers, hashes and IDs. Mixed letters and
 * digits, many class switches, few vowels, high entropy, not a digest or a
 * known artefact, not a placeholder.
 */
export function looksLikeLoneSecret(padded: string): boolean {
  const token = stripPadding(padded)
  const n = token.length
  if (n < 20 || n > LONE_MAX) return false
  // `0x…`: an address or a constant (Ethereum addresses mix cases as a checksum); Bitcoin addresses.
  if (NOT_SECRET_PREFIX.test(token) || /^0x/i.test(token) || BITCOIN_ADDRESS.test(token)) return false
  // ULIDs; publishable keys in hex (`pk_` of IEX Cloud, `pub_` of BestTime: their secret twins have rules).
  if ((n === 26 && ULID.test(token)) || /^(?:pk|pub)_[0-9a-f]{32}$/.test(token)) return false
  // A build or artefact name: a version (`rc0.13.0`) or a date stamp (`_20230412_`) inside the token.
  if (VERSION_OR_DATE.test(token)) return false
  // A line of a certificate or key body without its armour: base64 of DER object identifiers and names.
  if (DER_BASE64.test(token)) return false
  // A GUID inside the token (`GUID-88B04BE2-…`, `id_<uuid>`); a file name (`TaxReturns2022.pdf`).
  if (UUID_INSIDE.test(token) || /\.[a-z][a-z0-9]{1,4}$/.test(token)) return false
  const s = shapeOf(token)
  const mixedCase = s.upper >= 3 && s.lower >= 3
  // Hex in one case is a digest, an id or a UUID; mixed-case hex is not how digests are written.
  if ((s.hexOnly || DIGEST_OR_UUID.test(token)) && !mixedCase) return false
  const letters = s.upper + s.lower
  if (letters < n * 0.3) return false
  // Digits are what set a key apart from words; a key of letters only (or one digit) must mix cases as base52 does.
  if (s.digit < 2 && !isRandomLetters(s.digit ? token.replace(/[0-9]/, '') : token)) return false
  // Letters with as few vowels as random letters have (~19 %), in a token long enough to tell.
  const fewVowels = n >= 24 && letters >= 8 && (s.vowels + s.upperVowels) / letters <= 0.3
  // Random base62 switches class on ~60 % of neighbours, base36 on ~40 %; identifiers and words far less.
  if (s.switches < n * (fewVowels && !mixedCase ? 0.2 : 0.28)) return false
  // `-` and `_` group a key (`xxxxxxxx-xxxx-…` with non-hex letters, `I1WP-NCNH-…`); other symbols are data.
  const separators = countOf(token, '-_')
  if (separators > 5 || (separators > 0 && isIdentifierLike(token))) return false
  if ((separators > 0 || s.other > 0) && hasWordPart(token)) return false
  // Base64 with its `+` and `/` is mostly encoded data (images, hashes, ciphertext) when it stands alone:
  // at most a few, and only in a token long enough to be a key (an AWS secret key has 40 characters).
  const symbols = s.other - separators
  if (symbols > (n >= 30 ? 4 : 2)) return false
  // Words have many vowels; a base62 token that switches class on half its neighbours is not words.
  const dense = mixedCase && s.switches >= n * 0.5
  // Base36 keys (`6esicmhsdpu8blum1wzr8a6bae9s507u`): digits on every few characters, which words do not have.
  // Hex letters are a third vowels, so hex is left to the stricter bar.
  const digitDense = !s.hexOnly && s.digit >= n * 0.15 && s.switches >= n * 0.4
  if (!dense && s.lower >= 8 && s.vowels / s.lower > (digitDense ? 0.4 : 0.33)) return false
  // A run of 8 one-case letters is rare in random base62 (mixed case), of 13 in random base36 (one case);
  // one-case runs up to 16 pass when the letters have as few vowels as random letters do (~19 %).
  // The longest run of a random string grows with its length (about log n): one more letter per 8 characters past 24.
  // Base64 with `+` or `/` keeps the fixed limit: certificate and key bodies (DER) have long capital runs.
  const runLimit =
    (mixedCase ? 8 : fewVowels ? 16 : 12) + (symbols > 0 ? 0 : Math.max(0, Math.floor((n - 24) / 8)))
  if (s.longestCaseRun > runLimit) return false
  if (shannonEntropy(token) < effectiveEntropyThreshold(n, 4.0) - 0.1) return false
  return !isPlaceholder(token, 'strict')
}

/**
 * A token right after words that name it a key, token, password or secret:
 * random enough to be one, and not a placeholder, a digest-shaped value of a
 * hash context, a word, a path or an identifier.
 */
export function looksLikeNamedSecret(padded: string, password: boolean): boolean {
  const token = stripPadding(padded)
  const n = token.length
  if (n < (password ? 8 : 12) || n > 300) return false
  if (NOT_SECRET_PREFIX.test(token)) return false
  if (isPlaceholder(token, 'strict')) return false
  // `$VAR`, `${VAR}`: a reference, not a value; `FOO_API_KEY`: the name of an environment variable.
  if (token[0] === '$' || /\$[{(]/.test(token)) return false
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(token) && !/\d.*\d.*\d/.test(token)) return false
  // Words joined by separators: a path, a package, a slug or an identifier (`aws-sdk/client-secrets-manager`).
  if (/^@?[A-Za-z]+(?:[-_/.:][A-Za-z]+)+$/.test(token) || isIdentifierLike(token)) return false
  const s = shapeOf(token)
  const letters = s.upper + s.lower
  if (letters === 0) return false
  // Without digits or symbols a key still mixes cases throughout; words and identifiers do not.
  const symbols = s.other - countOf(token, '_-.@')
  if (
    s.digit === 0 &&
    symbols === 0 &&
    (n < 24 || s.upper < 2 || s.lower < 2 || s.switches < n * 0.45) &&
    !isRandomLetters(token)
  )
    return false
  if (/^\d[\d.,:-]*$/.test(token) || /^v?\d+(?:\.\d+)+/.test(token)) return false
  if (/^(?:[a-z][a-z0-9+.-]*:\/\/|\/|\.\.?\/|~\/)/i.test(token) || /\.[a-z]{2,4}$/.test(token)) return false
  if (s.lower >= 8 && s.vowels / s.lower > 0.38 && s.switches < n * 0.2) return false
  return shannonEntropy(token) >= effectiveEntropyThreshold(n, password ? 2.8 : 3.3)
}
