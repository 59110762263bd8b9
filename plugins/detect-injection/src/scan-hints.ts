/**
 * One pass over a normalised text that tells the later stages what they can
 * skip: which payload encodings could be present, and whether folding
 * leetspeak could reveal anything. A class table replaces the regular
 * expressions these hints used to be: English is full of hex letters and
 * single letters, so those patterns backtracked at almost every position.
 * Each hint is exactly as strict as the pattern it stands for (tests compare
 * both on generated texts), so skipping on a false hint never loses a match.
 */
import { LEET_MAP, SHORTEST_STEM } from './leetspeak.js'

/** What a text may hold; false means the corresponding stage would find nothing. */
export interface TextHints {
  /** A run of at least 16 base64 characters: `/[A-Za-z0-9+\/_-]{16}/`. */
  readonly base64: boolean
  /** 24 hex digits in a row, or six pairs separated by spaces or colons: `/[0-9a-fA-F]{24}|(?:[0-9a-fA-F]{2}[\s:]){5}[0-9a-fA-F]{2}/`. */
  readonly hex: boolean
  /** Four single letters, each followed by one separator: `/(?:^|[^A-Za-z])[A-Za-z][ .\-_*·]…[A-Za-z](?![A-Za-z])/` (four letters). */
  readonly spaced: boolean
  /**
   * A run of at least {@link SHORTEST_STEM} letters and leet characters that
   * mixes both. Every stem has a letter no leet character stands for, so
   * without such a run folding leetspeak reveals no stem the text lacks.
   * Characters outside ASCII count as letters, to be safe.
   */
  readonly leet: boolean
}

const BASE64_RUN = 16
const HEX_RUN = 24
/** Pairs of hex digits each followed by a space or colon before a last pair (`de ad be ef …`). */
const HEX_PAIRS = 5
/** Single letters in a row, each but the last followed by one separator (`i g n o …`). */
const SPACED_LETTERS = 4
/** {@link SHORTEST_STEM}, module-local so the loop does not read the imported binding's cell. */
const LEET_RUN: number = SHORTEST_STEM

// Bits of a character's class; the first four also mark what the scan found.
const HEX_BIT = 0
const BASE64_BIT = 1
const SPACED_BIT = 2
const LEET_BIT = 3
const LETTER_BIT = 4
const SPACED_SEPARATOR_BIT = 5
const PAIR_SEPARATOR_BIT = 6
/** A letter no leet character stands for (any ASCII letter, and everything outside ASCII). */
const PLAIN_BIT = 7
const HEX = 1 << HEX_BIT
const BASE64 = 1 << BASE64_BIT
/** Found only: four spaced single letters. */
const SPACED = 1 << SPACED_BIT
const LEET = 1 << LEET_BIT
const LETTER = 1 << LETTER_BIT
const SPACED_SEPARATOR = 1 << SPACED_SEPARATOR_BIT
const PAIR_SEPARATOR = 1 << PAIR_SEPARATOR_BIT
const PLAIN = 1 << PLAIN_BIT

/** `\s` outside ASCII, as `/\s/` sees it. */
const UNICODE_SPACES = [
  0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]

/** Classes of every UTF-16 code unit. */
const CLASS = new Uint8Array(0x10000).fill(PLAIN, 0x80)
for (let c = 0; c < 0x80; c++) {
  const ch = String.fromCharCode(c)
  let cls = 0
  if (/[0-9a-fA-F]/.test(ch)) cls |= HEX
  if (/[A-Za-z0-9+/_-]/.test(ch)) cls |= BASE64
  if (/[A-Za-z]/.test(ch)) cls |= LETTER | PLAIN
  if (/[ .\-_*]/.test(ch)) cls |= SPACED_SEPARATOR
  if (/[\s:]/.test(ch)) cls |= PAIR_SEPARATOR
  CLASS[c] = cls
}
CLASS[0xb7] |= SPACED_SEPARATOR // the middle dot
for (const c of UNICODE_SPACES) CLASS[c] |= PAIR_SEPARATOR
for (const ch of Object.keys(LEET_MAP)) CLASS[ch.charCodeAt(0)] |= LEET

/** The hints of a text in which {@link mayHaveHints} found nothing: all false (shared, never changed). */
const NO_HINTS: TextHints = Object.freeze({ base64: false, hex: false, spaced: false, leet: false })

/**
 * Scan `text` for every hint: first {@link mayHaveHints}, which reads ordinary
 * prose several times faster and is false only where every hint is; where it
 * is true, the exact scan ({@link scanAllHints}).
 */
export function scanHints(text: string): TextHints {
  return mayHaveHints(text) ? scanAllHints(text) : NO_HINTS
}

/**
 * False only when no hint can be true; true on anything a hint needs, and more.
 * What each hint needs, in a text read as maximal runs of base64 characters:
 *
 * - `base64` and a 24-digit `hex` run: a run of at least 16 (hex digits are base64 characters);
 * - hex pairs (`hh hh hh hh hh hh`): the second and the third pair are runs of exactly
 *   two hex digits with one character between them (separators are not base64 characters);
 * - `spaced`: its first two letters are single letters (no ASCII letter on either side)
 *   two characters apart;
 * - `leet`: a leet character next to a letter or a character outside ASCII (the run
 *   mixes both, and holds nothing else).
 *
 * One character is read per step; a letter after a letter (most characters of prose)
 * only extends the run.
 */
export function mayHaveHints(text: string): boolean {
  const n = text.length
  let run = 0
  let previous = 0
  /** End of the last run of exactly two hex digits, and index of the last single letter. */
  let lastPair = -4
  let lastSingle = -4
  for (let i = 0; i < n; i = (i + 1) | 0) {
    const current = CLASS[text.charCodeAt(i)]
    if ((current & previous & LETTER) !== 0) {
      run = (run + 1) | 0
      if (run >= BASE64_RUN) return true
      previous = current
      continue
    }
    if ((current & BASE64) !== 0) {
      if (++run >= BASE64_RUN) return true
    } else {
      if (run === 2 && (CLASS[text.charCodeAt(i - 1)] & CLASS[text.charCodeAt(i - 2)] & HEX) !== 0) {
        if (lastPair === i - 3) return true
        lastPair = i
      }
      run = 0
    }
    if (
      ((previous & PLAIN) !== 0 && (current & LEET) !== 0) ||
      ((previous & LEET) !== 0 && (current & PLAIN) !== 0)
    )
      return true
    if (
      (previous & LETTER) !== 0 &&
      (current & LETTER) === 0 &&
      (i < 2 || (CLASS[text.charCodeAt(i - 2)] & LETTER) === 0)
    ) {
      if (lastSingle === i - 3) return true
      lastSingle = i - 1
    }
    previous = current
  }
  return false
}

/**
 * Scan `text` once for every hint. The loop is branch-free (counters are reset
 * by masking, findings are or-ed into bits): the letters, digits and spaces of
 * ordinary text alternate too irregularly for the branch predictor.
 */
export function scanAllHints(text: string): TextHints {
  let found = 0
  let base64Run = 0
  let hexRun = 0
  // How many "hh " groups end at i-1, i-2 and i-3 (chains of hex pairs).
  let pairs1 = 0
  let pairs2 = 0
  let pairs3 = 0
  // How many spaced single letters end at i-1 and i-2.
  let letters1 = 0
  let letters2 = 0
  // The current run of letters and leet characters, and the classes it mixes.
  let leetRun = 0
  let runMix = 0
  const n = text.length
  // Classes of text[i-3], text[i-2], text[i-1], text[i] and text[i+1].
  let back3 = 0
  let back2 = 0
  let previous = 0
  let current = n > 0 ? CLASS[text.charCodeAt(0)] : 0
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? CLASS[text.charCodeAt(i + 1)] : 0
    // `(k - x) >>> 31` is 1 when x > k; `-bit` is a mask of all ones or zeros.
    base64Run = (base64Run + 1) & -((current >> BASE64_BIT) & 1)
    found |= ((BASE64_RUN - 1 - base64Run) >>> 31) << BASE64_BIT
    hexRun = (hexRun + 1) & -(current & HEX)
    found |= ((HEX_RUN - 1 - hexRun) >>> 31) << HEX_BIT
    // A group "hh " ends at i when text[i-3], text[i-2] are hex and text[i-1] separates.
    const pairs = (pairs3 + 1) & -(back3 & back2 & (previous >> PAIR_SEPARATOR_BIT) & 1)
    found |= (((HEX_PAIRS - 1 - pairs) >>> 31) & current & next & HEX) << HEX_BIT
    pairs3 = pairs2
    pairs2 = pairs1
    pairs1 = pairs
    // A single letter has no letter on either side; one separator before it continues a chain.
    const single = (current >> LETTER_BIT) & ~((previous | next) >> LETTER_BIT) & 1
    const letters = single * (1 + ((previous >> SPACED_SEPARATOR_BIT) & 1) * letters2)
    found |= ((SPACED_LETTERS - 1 - letters) >>> 31) << SPACED_BIT
    letters2 = letters1
    letters1 = letters
    // Letters and leet characters: a run long enough for a stem that mixes both kinds.
    const inRun = -(((current >> LEET_BIT) | (current >> PLAIN_BIT)) & 1)
    leetRun = (leetRun + 1) & inRun
    runMix = (runMix | current) & inRun
    found |= ((LEET_RUN - 1 - leetRun) >>> 31) & (runMix >> LEET_BIT) & (runMix >> PLAIN_BIT) & 1 ? LEET : 0
    back3 = back2
    back2 = previous
    previous = current
    current = next
  }
  return {
    base64: (found & BASE64) !== 0,
    hex: (found & HEX) !== 0,
    spaced: (found & SPACED) !== 0,
    leet: (found & LEET) !== 0,
  }
}
