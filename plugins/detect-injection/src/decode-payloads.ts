/**
 * Encoded payloads: base64, hex, escape sequences, percent-encoding, ROT13,
 * reversed text and letters spaced apart. Each is decoded so that the
 * decoded text can be scored like any other; a payload that decodes to
 * binary (hashes, images, keys) is dropped.
 */
import { lowerCaseInPlace } from './match-rules.js'
import { NeedleIndex } from './needle-index.js'
import { scanHints, type TextHints } from './scan-hints.js'

/** How a payload was hidden. */
export type PayloadKind = 'base64' | 'hex' | 'escapes' | 'percent' | 'rot13' | 'reversed' | 'spaced'

/** A decoded payload and where it sat in the (normalised) text. */
export interface Payload {
  readonly kind: PayloadKind
  readonly start: number
  readonly end: number
  readonly text: string
}

const MAX_PAYLOADS = 8
const MAX_DECODED = 4096

const BASE64 =
  /(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])|(?<![A-Za-z0-9+/=_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9+/=_-])/g
const HEX = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}[\s:]?){12,}(?![0-9a-fA-F])/g
const ESCAPES = /(?:\\x[0-9a-fA-F]{2}){6,}|(?:\\u[0-9a-fA-F]{4}){4,}/g
const PERCENT = /(?:%[0-9a-fA-F]{2}[A-Za-z0-9 ._~-]{0,2}){6,}/g
// ROT13 and reversed text are only tried when a key word shows up encoded;
// the words are looked for first without word boundaries, all in one pass.
const ROT13_WORDS = [
  'vtaber',
  'qvfertneq',
  'sbetrg',
  'cerivbhf',
  'vafgehpgvba',
  'flfgrz',
  'cebzcg',
  'wnvyoernx',
  'ehyrf',
]
const REVERSED_WORDS = [
  'erongi',
  'dragersid',
  'tegrof',
  'suoiverp',
  'snoitcurtsni',
  'tpmorp',
  'metsys',
  'kaerbliaj',
]
const ENCODED_WORDS = new NeedleIndex([...ROT13_WORDS, ...REVERSED_WORDS])
const ROT13_HINT = /\b(?:vtaber|qvfertneq|sbetrg|cerivbhf|vafgehpgvbaf?|flfgrz|cebzcg|wnvyoernx|ehyrf)\b/i
const REVERSED_HINT = /\b(?:erongi|dragersid|tegrof|suoiverp|snoitcurtsni|tpmorp|metsys|kaerbliaj)\b/i
const SPACED = /(?<![\p{L}\p{N}])(?:\p{L}[ .\-_*·]){7,}\p{L}(?![\p{L}\p{N}])/gu

function anyFound(flags: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (flags[i] === 1) return true
  return false
}

/** True when a decoded string reads as text rather than bytes. */
export function isReadable(text: string): boolean {
  if (text.length < 8) return false
  let good = 0
  let letters = 0
  let spaces = 0
  for (const ch of text) {
    const c = ch.codePointAt(0) as number
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c < 0xa0)) continue
    good++
    if (c === 0x20) spaces++
    else if (/\p{L}/u.test(ch)) letters++
  }
  const total = [...text].length
  return good / total >= 0.95 && letters / total >= 0.5 && spaces >= 1
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base)
  })
}

function decodeEscapes(run: string): string {
  return run.replace(/\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})/g, (_, x, u) =>
    String.fromCharCode(Number.parseInt(x ?? u, 16)),
  )
}

function collect(
  text: string,
  pattern: RegExp,
  kind: PayloadKind,
  decode: (run: string) => string,
  out: Payload[],
): void {
  pattern.lastIndex = 0
  for (let m = pattern.exec(text); m && out.length < MAX_PAYLOADS; m = pattern.exec(text)) {
    let decoded: string
    try {
      decoded = decode(m[0].slice(0, MAX_DECODED * 2))
    } catch {
      continue
    }
    if (isReadable(decoded)) out.push({ kind, start: m.index, end: m.index + m[0].length, text: decoded })
  }
}

/**
 * Find and decode hidden payloads in a normalised text. `lower` (the text
 * lower-cased in place, see {@link lowerCaseInPlace}) and `hints` are passed
 * when the caller has them already.
 */
export function findPayloads(
  text: string,
  lower: string = lowerCaseInPlace(text),
  hints: TextHints = scanHints(text),
): Payload[] {
  const out: Payload[] = []
  if (hints.base64)
    collect(
      text,
      BASE64,
      'base64',
      (run) =>
        Buffer.from(run, run.includes('-') || run.includes('_') ? 'base64url' : 'base64').toString('utf8'),
      out,
    )
  if (hints.hex)
    collect(text, HEX, 'hex', (run) => Buffer.from(run.replace(/[\s:]/g, ''), 'hex').toString('utf8'), out)
  if (text.includes('\\')) collect(text, ESCAPES, 'escapes', decodeEscapes, out)
  if (text.includes('%')) collect(text, PERCENT, 'percent', (run) => decodeURIComponent(run), out)
  const encoded = ENCODED_WORDS.find(lower)
  if (anyFound(encoded, 0, ROT13_WORDS.length) && ROT13_HINT.test(text))
    out.push({ kind: 'rot13', start: 0, end: text.length, text: rot13(text) })
  if (anyFound(encoded, ROT13_WORDS.length, encoded.length) && REVERSED_HINT.test(text))
    out.push({ kind: 'reversed', start: 0, end: text.length, text: [...text].reverse().join('') })
  if (!hints.spaced) return out
  SPACED.lastIndex = 0
  for (let m = SPACED.exec(text); m && out.length < MAX_PAYLOADS; m = SPACED.exec(text)) {
    out.push({
      kind: 'spaced',
      start: m.index,
      end: m.index + m[0].length,
      text: m[0].replace(/[ .\-_*·]/g, ''),
    })
  }
  return out
}
