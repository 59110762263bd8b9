/**
 * Test secrets, generated at run time from a seeded PRNG so that no literal
 * credential sits in the repository (push protection and other scanners stay
 * quiet, and nobody mistakes a fixture for a leak). Prefixes are split for the
 * same reason.
 */
import { seededRandom } from '@gov/core/testing'
import { crc32, encodeBase62 } from '../src/checksum.js'

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const LOWER_HEX = '0123456789abcdef'
const BASE64 = `${ALNUM}+/`

const next = seededRandom(20240601)

/** `length` random characters from `charset`. */
export function random(charset: string, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += charset[Math.floor(next() * charset.length)]
  return out
}

export const alnum = (n: number) => random(ALNUM, n)
export const hex = (n: number) => random(LOWER_HEX, n)
export const b64 = (n: number) => random(BASE64, n)
export const letters = (n: number) => random(ALNUM.slice(0, 52), n)

/** A GitHub/npm-style token: prefix + 30 random + base62 CRC-32 (a wrong checksum when `corrupt`). */
export function checksummed(prefix: string, corrupt = false): string {
  const body = alnum(30)
  const sum = encodeBase62(crc32(body), 6)
  const last = sum[5] === 'A' ? 'B' : 'A'
  return prefix + body + (corrupt ? sum.slice(0, 5) + last : sum)
}

/** A PEM block with a random body of `bodyChars` base64 characters in 64-column lines. */
export function pem(label: string, bodyChars = 900, newline = '\n'): string {
  const body = b64(bodyChars)
    .match(/.{1,64}/g)!
    .join(newline)
  return `-----BEGIN ${label}-----${newline}${body}${newline}-----END ${label}-----`
}

/** base64url without padding. */
export function base64url(value: string): string {
  return Buffer.from(value).toString('base64url')
}

/** A JWT with the given header. */
export function jwt(header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const payload = { sub: alnum(8), iat: 1_700_000_000, role: 'admin' }
  return `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}.${random(`${ALNUM}-_`, 43)}`
}

// Vendor prefixes, split so the source holds no token shape.
export const P = {
  ghp: `gh${'p_'}`,
  gho: `gh${'o_'}`,
  ghs: `gh${'s_'}`,
  ghPat: `github${'_pat_'}`,
  glpat: `gl${'pat-'}`,
  npm: `np${'m_'}`,
  akia: `AK${'IA'}`,
  aizasy: `AI${'zaSy'}`,
  skProj: `sk-${'proj-'}`,
  openaiMark: `T3Blbk${'FJ'}`,
  skAnt: `sk-${'ant-'}`,
  hf: `h${'f_'}`,
  gsk: `gs${'k_'}`,
  pplx: `ppl${'x-'}`,
  xai: `xa${'i-'}`,
  r8: `r${'8_'}`,
  orKey: `sk-${'or-v1-'}`,
  xoxb: `xox${'b-'}`,
  xoxp: `xox${'p-'}`,
  skLive: `sk_${'live_'}`,
  skTest: `sk_${'test_'}`,
  sq0atp: `sq0${'atp-'}`,
  sg: `S${'G.'}`,
  twilioSk: `S${'K'}`,
  mailgun: `ke${'y-'}`,
  shpat: `shp${'at_'}`,
  dop: `do${'p_v1_'}`,
  hrku: `HRK${'U-AA'}`,
  atatt: `ATA${'TT3'}`,
  pypi: `pyp${'i-AgEIcHlwaS5vcmc'}`,
  braintree: `access_${'token$production$'}`,
  slackHook: `https://hooks.${'slack.com'}/services/`,
  discordHook: `https://discord${'.com/api/webhooks/'}`,
  teamsHook: `.webhook.${'office.com/webhookb2/'}`,
  hvs: `hv${'s.'}`,
  dapi: `da${'pi'}`,
}

/** Texts of `size` characters built to make the rules work hard: repeated keywords, runs without delimiters, unterminated blocks, thousands of secret-looking assignments. */
export function hostileTexts(size: number): Record<string, string> {
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
  return {
    one_run: 'a'.repeat(size),
    base64_run: b64(size),
    repeated_assignment: fill('password='),
    keyword_soup: fill('key: token secret '),
    session_token_names: fill('sessiontoken='),
    curl_without_user: fill('curl/'),
    unterminated_private_key: `-----BEGIN RSA PRIVATE KEY-----\n${fill(`${alnum(63)}\n`)}`,
    many_named_secrets: fill(`key ${alnum(40)} `),
    many_json_keys: fill(`{"api_key":"${alnum(30)}"},`),
    many_headers: fill('Authorization: Bearer '),
    many_curl_users: fill('curl -u a:'),
    continued_curl_lines: fill('curl \\\n  -u a:b \\\n'),
    many_url_credentials: fill('https://a:b@'),
  }
}
