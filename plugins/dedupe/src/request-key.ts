import * as crypto from 'node:crypto'
import { createHash, type Hash } from 'node:crypto'
import { type CallInfo, type Exchange, TextCache, WHOLE_TEXT_MAX } from '@gov/core'

/** Body fields that do not change the answer's content, only how it is delivered. */
const DELIVERY_FIELDS = new Set(['stream', 'stream_options'])

/**
 * The identity of a request: the agent, the vendor format and a SHA-256 of the
 * governed body (after earlier steps masked it) without delivery fields — a
 * streaming and a non-streaming caller of the same request share one answer.
 * Two agents never share a key.
 *
 * The body is hashed in one pass over a prefix-free encoding of its JSON value
 * (see {@link bodyDigest}): object keys sorted as RFC 8785 sorts them, so two
 * bodies have the same key exactly when they are the same JSON value, as with
 * the canonical JSON this replaced. Long strings enter as their own SHA-256,
 * found in `digests` when the same text was seen before: a conversation
 * resent every turn hashes only its new messages.
 */
export function requestKey(call: CallInfo, exchange: Exchange, digests?: StringDigests): string {
  return `${encodeURIComponent(call.agentId)}:${exchange.vendor}:${bodyDigest(bodyOf(exchange), DELIVERY_FIELDS, digests)}`
}

/**
 * The request body through the read-only view (hosts before core 0.3.4 have
 * none: the body itself). Taking the writable body would make the host
 * serialise the request again instead of sending the caller's bytes.
 */
function bodyOf(exchange: Exchange): Readonly<Record<string, unknown>> {
  return exchange.bodyView ?? exchange.body
}

/**
 * Strings of at least this many UTF-16 units enter a body's encoding as the
 * SHA-256 of their own encoding (a message of a conversation, typically), so
 * their digest can be kept per text.
 */
export const DIGESTED_MIN = 256

/**
 * The SHA-256 (base64url) of long strings' encodings, per exact text
 * ({@link TextCache}: a sampled pre-key and a compare, so finding an earlier
 * message costs a compare, not a hash). Bounded by entries and bytes; one per
 * step instance.
 */
export class StringDigests {
  readonly #cache: TextCache<string>

  constructor(options: { max: number; maxBytes: number }) {
    this.#cache = new TextCache<string>({ ...options, sizeOfValue: () => 96 })
  }

  /** The digest of `text`'s encoding, computed once per text while it stays cached. */
  of(text: string): string {
    // Texts the cache would key by their SHA-256 cost as much to find as to hash.
    if (text.length > WHOLE_TEXT_MAX) return stringDigest(text)
    let digest = this.#cache.get(text)
    if (digest === undefined) {
      digest = stringDigest(text)
      this.#cache.set(text, digest)
    }
    return digest
  }

  /** Texts held. */
  get size(): number {
    return this.#cache.size
  }
}

/** True when the request asks for a deterministic answer (`temperature: 0`). */
export function isDeterministic(exchange: Exchange): boolean {
  return bodyOf(exchange).temperature === 0
}

/**
 * SHA-256 (base64url) of a JSON value, top-level fields in `skip` left out.
 * The encoding is prefix-free, so different values never encode alike: `n`,
 * `t`, `f`; a number `d<String(n)>;`; a string shorter than
 * {@link DIGESTED_MIN} `s<length>:<text>` (length in UTF-16 units; a string
 * with a lone surrogate, which UTF-8 cannot carry, is `j<JSON.stringify(text)>`
 * instead), a longer one `h<digest>`, the 43 characters of the SHA-256
 * (base64url) of that same encoding of it; an array `[`…`]`; an object `{`…`}`
 * of key, value pairs with keys sorted by UTF-16 code units and `undefined`
 * values left out (as JSON leaves them out). `digests` only remembers the long
 * strings' digests: the result is the same with or without it.
 */
export function bodyDigest(
  body: Readonly<Record<string, unknown>>,
  skip: ReadonlySet<string> = new Set(),
  digests?: StringDigests,
): string {
  const writer = new DigestWriter(digests)
  writer.put('gov-dedupe/3{')
  for (const key of sortedKeys(body)) {
    const value = body[key]
    if (value === undefined || skip.has(key)) continue
    writer.string(key)
    writer.value(value)
  }
  writer.put('}')
  return writer.digest()
}

/** `String.prototype.isWellFormed` (Node 20; TypeScript's ES2024 library, newer than this project's). */
type WellFormed = string & { isWellFormed(): boolean }

/** node:crypto's one-shot `hash` (Node 20.12 and later); undefined on older Node, where a Hash object does it. */
const hashOnce = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string })
  .hash

/**
 * Encoded text is collected in one string and hashed with one call when it
 * stays under this many UTF-16 units (a 1-turn call: no Hash object, one
 * UTF-8 conversion); past it, it goes to a streaming hash in pieces of about
 * this size, and a string this long goes to the hash as it is.
 */
const PIECE = 16_384

/**
 * An object's keys in UTF-16 code unit order, as `Array.prototype.sort` orders
 * strings; two keys (a chat message's `role` and `content`) are ordered by one
 * comparison instead of a sort.
 */
function sortedKeys(record: Readonly<Record<string, unknown>>): string[] {
  const keys = Object.keys(record)
  if (keys.length === 2) {
    const [a, b] = keys as [string, string]
    return a > b ? [b, a] : keys
  }
  return keys.length > 2 ? keys.sort() : keys
}

/** SHA-256 (base64url) of one string's encoding, `s<length>:<text>` or `j<JSON>`. */
function stringDigest(text: string): string {
  const writer = new DigestWriter(undefined)
  writer.inline(text)
  return writer.digest()
}

class DigestWriter {
  /** Encoded text not hashed yet. */
  #text = ''
  /** Created once the text outgrows {@link PIECE}. */
  #hash: Hash | undefined
  readonly #digests: StringDigests | undefined

  constructor(digests: StringDigests | undefined) {
    this.#digests = digests
  }

  /** Append encoding text (ASCII markers, numbers, JSON): never splits a string. */
  put(text: string): void {
    this.#text += text
    if (this.#text.length >= PIECE) this.#flush()
  }

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.string(value)
        return
      case 'number':
        this.put(`d${String(value)};`)
        return
      case 'boolean':
        this.put(value ? 't' : 'f')
        return
      case 'object':
        if (value === null) {
          this.put('n')
        } else if (Array.isArray(value)) {
          this.put('[')
          // JSON writes undefined array elements as null.
          for (const item of value) item === undefined ? this.put('n') : this.value(item)
          this.put(']')
        } else {
          this.put('{')
          const record = value as Record<string, unknown>
          for (const key of sortedKeys(record)) {
            const item = record[key]
            if (item === undefined) continue
            this.string(key)
            this.value(item)
          }
          this.put('}')
        }
        return
      default:
        // Not JSON (a body is parsed JSON, so never here): as JSON.stringify would write it.
        this.put(`x${String(JSON.stringify(value))};`)
    }
  }

  string(text: string): void {
    if (text.length < DIGESTED_MIN) this.inline(text)
    else this.put(`h${this.#digests ? this.#digests.of(text) : stringDigest(text)}`)
  }

  /** `text` written out: `s<length>:<text>`, or `j<JSON>` when UTF-8 cannot carry it. */
  inline(text: string): void {
    if (!(text as WellFormed).isWellFormed()) {
      this.put(`j${JSON.stringify(text)}`)
      return
    }
    if (text.length < PIECE) {
      this.put(`s${text.length}:${text}`)
      return
    }
    this.#text += `s${text.length}:`
    this.#flush()
    ;(this.#hash as Hash).update(text)
  }

  digest(): string {
    if (this.#hash === undefined && hashOnce !== undefined) return hashOnce('sha256', this.#text, 'base64url')
    this.#flush()
    return (this.#hash as Hash).digest('base64url')
  }

  /** Hash the collected text (creating the Hash on first use). */
  #flush(): void {
    this.#hash ??= createHash('sha256')
    if (this.#text === '') return
    this.#hash.update(this.#text)
    this.#text = ''
  }
}
