import { LETTER, UPPER, unitClass } from './char-class.js'
import type { Token } from './tokenize.js'

/**
 * Token features of the named-entity model, as hashed integers. The training
 * script (`train/train-ner.ts`) and the tagger call the same functions, so a
 * feature means the same bucket in both. Words are hashed from their code
 * units once per token; a feature is its template number mixed with that hash,
 * so no feature string is ever built.
 */

/** Tags of the model, in weight-row order. */
export const TAGS = ['O', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC'] as const
/** Number of tags. */
export const TAG_COUNT = TAGS.length
/** Tag index of O (outside any name). */
export const OUTSIDE = 0

/** Most features one token can have (the array the extractor fills is this long). */
export const MAX_FEATURES = 64

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** FNV-1a over code units [start, end) of `units`, lower-casing ASCII and Latin-1/Cyrillic/Greek capitals. */
export function hashLower(units: Uint16Array, start: number, end: number): number {
  let h = FNV_OFFSET
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ lowerUnit(units[i]), FNV_PRIME)
  }
  return h >>> 0
}

/** Lower-case of a code unit for the scripts the training data has; others unchanged (hashing only). */
function lowerUnit(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c
  if (c >= 0xc0 && c <= 0xde && c !== 0xd7) return c + 32
  if (c >= 0x410 && c <= 0x42f) return c + 32
  if (c >= 0x400 && c <= 0x40f) return c + 80
  if (c >= 0x391 && c <= 0x3a9) return c + 32
  // Latin Extended-A pairs capitals on even code points (Č/č, Ł/ł mostly follow it).
  if (c >= 0x100 && c <= 0x17f && (c & 1) === 0) return c + 1
  return c
}

/** Hash of a small integer sequence (a template number and its values). */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b)
  h = Math.imul(h ^ b ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * The shape of a word: X for an upper-case letter, x lower, d digit, the
 * character itself otherwise, repeats collapsed, at most 6 symbols ("Xx",
 * "X.X.", "Xx-Xx", "XX"), as a hash.
 */
export function shapeHash(units: Uint16Array, start: number, end: number): number {
  let h = 17
  let last = -1
  let n = 0
  for (let i = start; i < end && n < 6; i++) {
    const c = units[i]
    const kind = shapeOf(c)
    if (kind !== last) {
      h = Math.imul(h ^ kind, FNV_PRIME)
      last = kind
      n++
    }
  }
  return h >>> 0
}

/** Shape symbol of a code unit: 1 upper-case letter, 2 other letter, 3 digit, else the unit itself. */
function shapeOf(c: number): number {
  if (c >= 48 && c <= 57) return 3
  const bits = unitClass(c)
  if (bits & UPPER) return 1
  if (bits & LETTER) return 2
  return c + 8
}

/** Template numbers: each feature kind hashes into its own space. */
enum F {
  Bias = 1,
  Word,
  Shape,
  Prefix2,
  Prefix3,
  Suffix2,
  Suffix3,
  Suffix4,
  PrevWord,
  NextWord,
  Prev2Word,
  Next2Word,
  PrevShape,
  NextShape,
  PrevTag,
  PrevTags,
  PrevTagShape,
  Flag,
  PrevFlag,
  NextFlag,
  SentenceStart,
  CharBefore,
  CharAfter,
  Boolean,
  Length,
  PrevWordCap,
  WordNextShape,
  FlagCombo,
  CapRun,
  DocCase,
  DocCaseStart,
}

/** What the feature extractor needs of each token besides the {@link Token}: precomputed once per text. */
export interface TokenView {
  readonly tokens: readonly Token[]
  readonly units: Uint16Array
  /** Hash of each token's lower-case text. */
  readonly word: Uint32Array
  /** Shape hash of each token (with {@link shapeReady}, only of the tokens marked there). */
  readonly shape: Uint32Array
  /**
   * When set, `shape[i]` holds token i's shape only where `shapeReady[i]` is 1: the tagger fills the shapes
   * of the few tokens it scores and their neighbours ({@link shapesAround}) instead of every token's.
   */
  readonly shapeReady?: Uint8Array
  /** Lexicon flags of each token. */
  readonly flags: Int32Array
  /** Length of the run of capitalised tokens (name gaps only) that token i is part of. */
  readonly capRun: Uint8Array
  /**
   * How the same word is written elsewhere in the text: 1 when in lower case ("Mark" … "mark the box"),
   * 2 when capitalised inside another sentence ("Mindy has …" … "than Mindy").
   */
  readonly docCase: Uint8Array
}

const NONE = 0x5bd1e995

/** `mix(template, b)` of each lexicon flag bit b the features read (the 17 below {@link GERMAN}'s bit). */
function flagMixes(template: number): Uint32Array {
  const out = new Uint32Array(FLAG_BITS)
  for (let b = 0; b < FLAG_BITS; b++) out[b] = mix(template, b)
  return out
}
/** Lexicon flag bits the features read. */
const FLAG_BITS = 17
const FLAG_MASK = (1 << FLAG_BITS) - 1
const FLAG = flagMixes(F.Flag)
const PREV_FLAG = flagMixes(F.PrevFlag)
const NEXT_FLAG = flagMixes(F.NextFlag)
const BIAS = mix(F.Bias, 0)

/** Fills the shapes of tokens i - 1, i and i + 1 that a view with {@link TokenView.shapeReady} lacks. */
export function shapesAround(view: TokenView, i: number): void {
  const ready = view.shapeReady
  if (!ready) return
  const { tokens, units } = view
  const shape = view.shape as Uint32Array
  const to = Math.min(i + 1, tokens.length - 1)
  for (let k = Math.max(i - 1, 0); k <= to; k++) {
    if (ready[k]) continue
    shape[k] = shapeHash(units, tokens[k].start, tokens[k].end)
    ready[k] = 1
  }
}

/**
 * Fills `out` with the feature hashes of token `i` given the two previous
 * tags; returns how many were written.
 */
export function tokenFeatures(
  view: TokenView,
  i: number,
  prev: number,
  prev2: number,
  out: Uint32Array,
): number {
  const { tokens, units, word, shape, flags } = view
  const t = tokens[i]
  let n = 0
  const w = word[i]
  const s = shape[i]
  out[n++] = BIAS
  out[n++] = mix(F.Word, w)
  out[n++] = mix(F.Shape, s)
  const len = t.end - t.start
  out[n++] = mix(F.Prefix2, hashLower(units, t.start, Math.min(t.end, t.start + 2)))
  out[n++] = mix(F.Prefix3, hashLower(units, t.start, Math.min(t.end, t.start + 3)))
  if (len > 3) {
    out[n++] = mix(F.Suffix2, hashLower(units, t.end - 2, t.end))
    out[n++] = mix(F.Suffix3, hashLower(units, t.end - 3, t.end))
    if (len > 4) out[n++] = mix(F.Suffix4, hashLower(units, t.end - 4, t.end))
  }
  const hasPrev = i > 0
  const hasNext = i + 1 < tokens.length
  out[n++] = mix(F.PrevWord, hasPrev ? word[i - 1] : NONE)
  out[n++] = mix(F.NextWord, hasNext ? word[i + 1] : NONE)
  out[n++] = mix(F.Prev2Word, i > 1 ? word[i - 2] : NONE)
  out[n++] = mix(F.Next2Word, i + 2 < tokens.length ? word[i + 2] : NONE)
  out[n++] = mix(F.PrevShape, hasPrev ? shape[i - 1] : NONE)
  out[n++] = mix(F.NextShape, hasNext ? shape[i + 1] : NONE)
  out[n++] = mix(F.PrevTag, prev)
  out[n++] = mix(F.PrevTags, prev * 16 + prev2)
  out[n++] = mix(F.PrevTagShape, mix(prev, s))
  out[n++] = mix(F.PrevWordCap, mix(hasPrev ? word[i - 1] : NONE, t.cap ? 1 : 0))
  out[n++] = mix(F.WordNextShape, mix(w, hasNext ? shape[i + 1] : NONE))
  // The set flag bits, lowest first (x & -x is the lowest set bit): the same features in the same order as
  // testing all 17 bits, without the tests of the bits that are clear.
  const f = flags[i]
  for (let x = f & FLAG_MASK; x !== 0; x &= x - 1) out[n++] = FLAG[31 - Math.clz32(x & -x)]
  out[n++] = mix(F.FlagCombo, f & 0x3f)
  if (hasPrev)
    for (let x = flags[i - 1] & FLAG_MASK; x !== 0; x &= x - 1) out[n++] = PREV_FLAG[31 - Math.clz32(x & -x)]
  if (hasNext)
    for (let x = flags[i + 1] & FLAG_MASK; x !== 0 && n < MAX_FEATURES - 10; x &= x - 1)
      out[n++] = NEXT_FLAG[31 - Math.clz32(x & -x)]
  out[n++] = mix(F.SentenceStart, (t.sentenceStart ? 2 : 0) + (t.cap ? 1 : 0))
  out[n++] = mix(F.CharBefore, charBefore(units, t.start))
  out[n++] = mix(F.CharAfter, t.end < units.length ? units[t.end] : 0)
  out[n++] = mix(
    F.Boolean,
    (t.allCaps ? 1 : 0) | (t.dot ? 2 : 0) | (t.possessive ? 4 : 0) | (t.codeLike ? 8 : 0),
  )
  out[n++] = mix(F.Length, Math.min(len, 12) + (t.allCaps ? 16 : 0))
  out[n++] = mix(F.CapRun, Math.min(view.capRun[i], 6))
  out[n++] = mix(F.DocCase, view.docCase[i])
  out[n++] = mix(F.DocCaseStart, view.docCase[i] * 4 + (t.sentenceStart ? 2 : 0) + (t.cap ? 1 : 0))
  return n
}

/** The nearest character before `start` that is not a space (0 at the start of the text). */
function charBefore(units: Uint16Array, start: number): number {
  for (let k = start - 1; k >= 0 && k >= start - 3; k--) {
    const c = units[k]
    if (c !== 32) return c
  }
  return 0
}
