import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'

/**
 * Texts up to this many UTF-16 units are kept whole in the cache and found by
 * a sampled pre-key plus an exact comparison; longer ones are keyed by their
 * SHA-256 so the cache does not hold large documents.
 */
export const WHOLE_TEXT_MAX = 16 * 1024
/** Entries sharing one pre-key kept at most (a collision costs a re-analysis, never a wrong answer). */
const BUCKET_MAX = 4
/** Characters sampled (besides the length) for the pre-key. */
const SAMPLES = 48

interface Entry<V> {
  /** The exact text, or undefined for a long text keyed by its hash. */
  readonly text: string | undefined
  readonly tag: number
  readonly value: V
}

export interface TextCacheOptions<V> {
  /** Pre-keys (buckets) kept; each holds at most four texts. */
  readonly max: number
  /** Bound on the bytes held (texts at 2 bytes per unit plus `sizeOfValue`). */
  readonly maxBytes?: number
  /** Estimated bytes of one value. */
  readonly sizeOfValue?: (value: V) => number
}

/**
 * An LRU of values per exact text, cheap to look up with a text that is a new
 * string object on every call (a parsed request body): the key is a small
 * integer made from the length and a few sampled characters (no pass over the
 * whole text, no hashing of it), and the entries under it are compared with
 * `===` against the stored text (a flat compare). A long conversation resent
 * every turn therefore costs a few hundred nanoseconds per earlier message,
 * not a hash of it. `tag` separates analyses of one text made differently
 * (such as per channel).
 */
export class TextCache<V> {
  readonly #lru: LRUCache<number | string, readonly Entry<V>[]>

  constructor(options: TextCacheOptions<V>) {
    const sizeOfValue = options.sizeOfValue ?? (() => 64)
    this.#lru = new LRUCache<number | string, readonly Entry<V>[]>({
      max: options.max,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (bucket) => {
        let bytes = 32
        for (const entry of bucket) bytes += (entry.text?.length ?? 44) * 2 + sizeOfValue(entry.value) + 32
        return bytes
      },
    })
  }

  /** The value stored for exactly `text` (and `tag`), if any. */
  get(text: string, tag = 0): V | undefined {
    const long = text.length > WHOLE_TEXT_MAX
    const bucket = this.#lru.get(long ? longKey(text, tag) : preKey(text, tag))
    if (!bucket) return undefined
    for (const entry of bucket) {
      if (entry.tag === tag && (long || entry.text === text)) return entry.value
    }
    return undefined
  }

  /** Store `value` for `text` (and `tag`). */
  set(text: string, value: V, tag = 0): void {
    if (text.length > WHOLE_TEXT_MAX) {
      this.#lru.set(longKey(text, tag), [{ text: undefined, tag, value }])
      return
    }
    const key = preKey(text, tag)
    const old = this.#lru.get(key) ?? []
    const kept = old.filter((e) => !(e.tag === tag && e.text === text))
    if (kept.length >= BUCKET_MAX) kept.shift()
    kept.push({ text, tag, value })
    this.#lru.set(key, kept)
  }

  /** Buckets held. */
  get size(): number {
    return this.#lru.size
  }

  clear(): void {
    this.#lru.clear()
  }
}

/**
 * A 30-bit integer from the length, the tag and up to `SAMPLES` characters
 * spread over the text: positions ⌊k·(n−1)/(SAMPLES−1)⌋, the first and the
 * last character included. The positions are stepped in integers (a whole
 * step and a carried remainder): with a fractional index
 * (`Math.round(k * step)`, before core 0.3.4) a lookup of a 1 KB text took
 * 1.2–1.3× the CPU in process.
 */
function preKey(text: string, tag: number): number {
  const n = text.length
  let h = Math.imul(n ^ (tag << 20), 0x9e3779b1)
  if (n <= SAMPLES) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  } else {
    const gaps = SAMPLES - 1
    const whole = Math.floor((n - 1) / gaps)
    const rest = n - 1 - whole * gaps
    let at = 0
    let carry = 0
    for (let k = 0; k < SAMPLES; k++) {
      h = Math.imul(h ^ text.charCodeAt(at), 0x01000193)
      at += whole
      carry += rest
      if (carry >= gaps) {
        carry -= gaps
        at++
      }
    }
  }
  h ^= h >>> 15
  return h & 0x3fffffff
}

function longKey(text: string, tag: number): string {
  return `${tag}#${createHash('sha256').update(text).digest('base64')}`
}
