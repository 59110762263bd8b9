/**
 * Encoded payloads: base64, hex, escape sequences, percent-encoding, ROT13,
 * reversed text and letters spaced apart. Each is decoded so that the
 * decoded text can be scored like any other; a payload that decodes to
 * binary (hashes, images, keys) is dropped.
 *
 * The work is linear in the text and bounded per call, whatever the text
 * (a hostile prompt may be megabytes of base64): base64 and hex runs are
 * found by hand-written scanners, not by regular expressions whose repeated
 * groups push one backtracking entry per repetition (a multi-megabyte run
 * overflowed the regexp stack); the other patterns repeat at most
 * {@link MAX_RUN} times per match; one payload decodes at most
 * {@link MAX_DECODED} characters; and one call decodes at most
 * {@link DecodeBudget.chars} characters over all payloads and layers.
 */
import { ENCODED_WORDS, ROT13_WORDS } from './encoded-words.js'
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
  /**
   * False when the decoded text is itself an encoding (base64 of base64):
   * not scored as text, only decoded further.
   */
  readonly readable: boolean
}

/** Most payloads taken from one text (one layer). */
export const MAX_PAYLOADS = 8
/** Most characters one payload decodes to; a longer run is decoded from its start. */
export const MAX_DECODED = 4096
/** Most characters decoded per call over every payload and layer (see {@link DecodeBudget}). */
export const DECODE_BUDGET_CHARS = 32 * 1024
/** Most repetitions of an escape, percent or spaced-letter group in one match. */
const MAX_RUN = 4096

/** What one call may still decode; shared by every payload and every layer of one analysis. */
export interface DecodeBudget {
  chars: number
}

/** A fresh budget for one analysis. */
export function decodeBudget(chars = DECODE_BUDGET_CHARS): DecodeBudget {
  return { chars }
}

const ESCAPES = new RegExp(`(?:\\\\x[0-9a-fA-F]{2}){6,${MAX_RUN}}|(?:\\\\u[0-9a-fA-F]{4}){4,${MAX_RUN}}`, 'g')
const PERCENT = new RegExp(`(?:%[0-9a-fA-F]{2}[A-Za-z0-9 ._~-]{0,2}){6,${MAX_RUN}}`, 'g')
// ROT13 and reversed text are only tried when a key word shows up encoded;
// the words are looked for first without word boundaries, all in one pass.
const ENCODED_INDEX = new NeedleIndex(ENCODED_WORDS)
const ROT13_HINT = /\b(?:vtaber|qvfertneq|sbetrg|cerivbhf|vafgehpgvbaf?|flfgrz|cebzcg|wnvyoernx|ehyrf)\b/i
const REVERSED_HINT = /\b(?:erongi|dragersid|tegrof|suoiverp|snoitcurtsni|tpmorp|metsys|kaerbliaj)\b/i
// At most MAX_RUN letters per match: a longer run is taken in pieces.
const SPACED = /(?<![\p{L}\p{N}])(?:\p{L}[ .\-_*·]){7,1024}\p{L}(?![\p{L}\p{N}])/gu

// Character classes for the base64 and hex scanners.
const STD = 1 // A-Z a-z 0-9 + /
const URL_SAFE = 2 // A-Z a-z 0-9 - _
const HEX_DIGIT = 4
const PAIR_SEPARATOR = 8 // \s or ':'
const PAD = 16 // '='
const CLASS = new Uint8Array(0x10000)
for (let c = 0; c < 0x80; c++) {
  const ch = String.fromCharCode(c)
  if (/[A-Za-z0-9+/]/.test(ch)) CLASS[c] |= STD
  if (/[A-Za-z0-9_-]/.test(ch)) CLASS[c] |= URL_SAFE
  if (/[0-9a-fA-F]/.test(ch)) CLASS[c] |= HEX_DIGIT
  if (/[\s:]/.test(ch)) CLASS[c] |= PAIR_SEPARATOR
}
CLASS[0x3d] |= PAD
for (let c = 0x80; c < 0x10000; c++) if (/\s/.test(String.fromCharCode(c))) CLASS[c] |= PAIR_SEPARATOR
/** Any character that continues a base64-looking run (either alphabet, or padding). */
const BASE64_RUN = STD | URL_SAFE | PAD

function anyFound(flags: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (flags[i] === 1) return true
  return false
}

const LETTER = /\p{L}/u

/** True when a decoded string reads as text rather than bytes. */
export function isReadable(text: string): boolean {
  if (text.length < 8) return false
  let good = 0
  let letters = 0
  let spaces = 0
  let total = 0
  for (const ch of text) {
    total++
    const c = ch.codePointAt(0) as number
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c < 0xa0)) continue
    good++
    if (c === 0x20) spaces++
    else if (c < 0x80 ? (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a : LETTER.test(ch)) letters++
  }
  return good / total >= 0.95 && letters / total >= 0.5 && spaces >= 1
}

/** True when a decoded string is printable and holds a run another layer could decode. */
function looksEncoded(text: string): boolean {
  if (text.length < 16) return false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) {
      if (c !== 9 && c !== 10 && c !== 13) return false
    }
  }
  const hints = scanHints(text)
  return hints.base64 || hints.hex
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

/** Collects payloads of one text, within the call's budget. */
class Collector {
  readonly out: Payload[] = []
  readonly #budget: DecodeBudget

  constructor(budget: DecodeBudget) {
    this.#budget = budget
  }

  /** False once this text has its payloads or the call has decoded all it may. */
  get open(): boolean {
    return this.out.length < MAX_PAYLOADS && this.#budget.chars > 0
  }

  /** Decode `run` and keep it when it reads as text. */
  add(kind: PayloadKind, start: number, end: number, run: string, decode: (run: string) => string): void {
    let decoded: string
    try {
      decoded = decode(run)
    } catch {
      return
    }
    if (decoded.length > MAX_DECODED) decoded = decoded.slice(0, MAX_DECODED)
    if (decoded.length > this.#budget.chars) decoded = decoded.slice(0, this.#budget.chars)
    // Every decoded character counts against the budget, readable or not.
    this.#budget.chars -= decoded.length
    if (isReadable(decoded)) this.out.push({ kind, start, end, text: decoded, readable: true })
    else if (looksEncoded(decoded)) this.out.push({ kind, start, end, text: decoded, readable: false })
  }
}

/**
 * Base64 runs, as the pattern
 * `(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])`
 * or `(?<!…)[A-Za-z0-9_-]{20,}(?!…)` would find them: a maximal run of
 * base64-looking characters that is standard base64 (with padding only at
 * the end, length a multiple of four, at least 16) or URL-safe base64 without
 * padding (at least 20). One pass; a run decodes from its start, at most
 * {@link MAX_DECODED} characters.
 */
function collectBase64(text: string, into: Collector): void {
  const n = text.length
  let i = 0
  while (i < n && into.open) {
    if ((CLASS[text.charCodeAt(i)] & BASE64_RUN) === 0) {
      i++
      continue
    }
    const start = i
    let kinds = STD | URL_SAFE
    let pad = 0
    let padMisplaced = false
    for (; i < n; i++) {
      const cls = CLASS[text.charCodeAt(i)]
      if ((cls & BASE64_RUN) === 0) break
      if (cls & PAD) {
        pad++
        continue
      }
      if (pad > 0) padMisplaced = true
      kinds &= cls
    }
    const length = i - start
    const standard =
      (kinds & STD) !== 0 && !padMisplaced && pad <= 2 && length % 4 === 0 && length - (pad > 0 ? 4 : 0) >= 16
    const urlSafe = (kinds & URL_SAFE) !== 0 && pad === 0 && length >= 20
    if (!standard && !urlSafe) continue
    // 4 characters make 3 bytes: take whole groups up to the decoded limit.
    const take = Math.min(length, Math.floor((MAX_DECODED * 4) / 3 / 4) * 4)
    const run = text.slice(start, start + take)
    const encoding = standard ? 'base64' : 'base64url'
    into.add('base64', start, i, run, (r) => Buffer.from(r, encoding).toString('utf8'))
  }
}

/**
 * Hex runs, as `(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}[\s:]?){12,}(?![0-9a-fA-F])`
 * would find them: pairs of hex digits, each optionally followed by one
 * separator; when an odd digit is left at the end, the match ends at the last
 * separator before it. One pass: a run that fails is skipped whole (any later
 * start inside it would end at the same place with fewer pairs).
 */
function collectHex(text: string, into: Collector): void {
  const n = text.length
  const isHex = (k: number) => k < n && (CLASS[text.charCodeAt(k)] & HEX_DIGIT) !== 0
  let i = 0
  while (i < n && into.open) {
    if (!isHex(i) || (i > 0 && isHex(i - 1))) {
      i++
      continue
    }
    const start = i
    let pairs = 0
    let end = i
    // Pairs and end of the match as of the last pair followed by a separator.
    let pairsAtSeparator = 0
    let endAtSeparator = -1
    while (isHex(i) && isHex(i + 1)) {
      i += 2
      pairs++
      end = i
      if (i < n && (CLASS[text.charCodeAt(i)] & PAIR_SEPARATOR) !== 0) {
        pairsAtSeparator = pairs
        endAtSeparator = i
        i++
      }
    }
    if (isHex(end)) {
      // An odd digit follows the last pair: back off to the last separator.
      pairs = pairsAtSeparator
      end = endAtSeparator
    }
    if (i === start) i++
    if (pairs < 12 || end <= start) continue
    const run = text.slice(start, Math.min(end, start + MAX_DECODED * 3))
    into.add('hex', start, end, run, (r) => Buffer.from(r.replace(/[\s:]/g, ''), 'hex').toString('utf8'))
  }
}

function collectPattern(
  text: string,
  pattern: RegExp,
  kind: PayloadKind,
  decode: (run: string) => string,
  into: Collector,
): void {
  pattern.lastIndex = 0
  for (let m = pattern.exec(text); m && into.open; m = pattern.exec(text)) {
    into.add(kind, m.index, m.index + m[0].length, m[0], decode)
  }
}

/** Up to {@link MAX_DECODED} characters of `text` around `at`. */
function around(text: string, at: number): { start: number; end: number } {
  const start = Math.max(0, Math.min(at - MAX_DECODED / 2, text.length - MAX_DECODED))
  return { start, end: Math.min(text.length, start + MAX_DECODED) }
}

/** Options of {@link findPayloads}. */
export interface FindPayloadsOptions {
  /** The text lower-cased in place (see {@link lowerCaseInPlace}), when the caller has it. */
  readonly lower?: string
  /**
   * Which of {@link ENCODED_WORDS} occur in `lower` (flags in that order), when
   * the caller's own needle pass found them (match-rules.ts `findNeedles`).
   */
  readonly encoded?: Uint8Array
  readonly hints?: TextHints
  /** What the call may still decode; shared between layers. A fresh one by default. */
  readonly budget?: DecodeBudget
}

/**
 * False when {@link findPayloads} would find nothing without looking further: no hint of
 * base64, hex or spaced letters, no `\\` or `%`, and none of the encoded words (`encoded`,
 * flags as in {@link FindPayloadsOptions.encoded}). Most texts; the caller then skips the
 * call and its budget, collector and result.
 */
export function mayHavePayloads(text: string, encoded: Uint8Array, hints: TextHints): boolean {
  return (
    hints.base64 ||
    hints.hex ||
    hints.spaced ||
    anyFound(encoded, 0, encoded.length) ||
    text.includes('\\') ||
    text.includes('%')
  )
}

/** Find and decode hidden payloads in a normalised text. */
export function findPayloads(text: string, options: FindPayloadsOptions = {}): Payload[] {
  const hints = options.hints ?? scanHints(text)
  const into = new Collector(options.budget ?? decodeBudget())
  if (hints.base64) collectBase64(text, into)
  if (hints.hex && into.open) collectHex(text, into)
  if (into.open && text.includes('\\')) collectPattern(text, ESCAPES, 'escapes', decodeEscapes, into)
  if (into.open && text.includes('%'))
    collectPattern(text, PERCENT, 'percent', (run) => decodeURIComponent(run), into)
  if (!into.open) return into.out
  const encoded = options.encoded ?? ENCODED_INDEX.find(options.lower ?? lowerCaseInPlace(text))
  if (anyFound(encoded, 0, ROT13_WORDS.length)) {
    const m = ROT13_HINT.exec(text)
    if (m) {
      const { start, end } = around(text, m.index)
      into.add('rot13', start, end, text.slice(start, end), rot13)
    }
  }
  if (into.open && anyFound(encoded, ROT13_WORDS.length, encoded.length)) {
    const m = REVERSED_HINT.exec(text)
    if (m) {
      const { start, end } = around(text, m.index)
      into.add('reversed', start, end, text.slice(start, end), (run) => [...run].reverse().join(''))
    }
  }
  if (!hints.spaced) return into.out
  SPACED.lastIndex = 0
  for (let m = SPACED.exec(text); m && into.open; m = SPACED.exec(text)) {
    // Spaced letters are not decoded bytes: they are kept whatever they read as.
    into.out.push({
      kind: 'spaced',
      start: m.index,
      end: m.index + m[0].length,
      text: m[0].replace(/[ .\-_*·]/g, ''),
      readable: true,
    })
  }
  return into.out
}
