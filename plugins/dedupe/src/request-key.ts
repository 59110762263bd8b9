import * as crypto from 'node:crypto'
import { createHash, type Hash } from 'node:crypto'
import type { CallInfo, Exchange } from '@gov/core'

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
 * the canonical JSON this replaced, at about half its cost on a long
 * conversation (no string escaping, no canonical text built).
 */
export function requestKey(call: CallInfo, exchange: Exchange): string {
  return `${encodeURIComponent(call.agentId)}:${exchange.vendor}:${bodyDigest(exchange.body, DELIVERY_FIELDS)}`
}

/** True when the request asks for a deterministic answer (`temperature: 0`). */
export function isDeterministic(exchange: Exchange): boolean {
  return exchange.body.temperature === 0
}

/**
 * SHA-256 (base64url) of a JSON value, top-level fields in `skip` left out.
 * The encoding is prefix-free, so different values never encode alike: `n`,
 * `t`, `f`; a number `d<String(n)>;`; a string `s<length>:<text>` (length in
 * UTF-16 units; a string with a lone surrogate, which UTF-8 cannot carry, is
 * `j<JSON.stringify(text)>` instead); an array `[`…`]`; an object `{`…`}` of key,
 * value pairs with keys sorted by UTF-16 code units and `undefined` values left
 * out (as JSON leaves them out).
 */
export function bodyDigest(
  body: Readonly<Record<string, unknown>>,
  skip: ReadonlySet<string> = new Set(),
): string {
  const writer = new DigestWriter()
  writer.put('gov-dedupe/2{')
  for (const key of Object.keys(body).sort()) {
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

class DigestWriter {
  /** Encoded text not hashed yet. */
  #text = ''
  /** Created once the text outgrows {@link PIECE}. */
  #hash: Hash | undefined

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
          for (const key of Object.keys(record).sort()) {
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
