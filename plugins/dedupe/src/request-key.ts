import { createHash, type Hash } from 'node:crypto'
import type { CallInfo, Exchange } from '@gov/core'

/** Body fields that do not change the answer's content, only how it is delivered. */
const DELIVERY_FIELDS = new Set(['stream', 'stream_options'])

/** Strings at least this long go to the hash as they are, not copied into the joined text first. */
const DIRECT = 256

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
  writer.parts.push('gov-dedupe/2{')
  for (const key of Object.keys(body).sort()) {
    const value = body[key]
    if (value === undefined || skip.has(key)) continue
    writer.string(key)
    writer.value(value)
  }
  writer.parts.push('}')
  return writer.digest()
}

/** `String.prototype.isWellFormed` (Node 20; TypeScript's ES2024 library, newer than this project's). */
type WellFormed = string & { isWellFormed(): boolean }

class DigestWriter {
  readonly parts: string[] = []
  readonly #hash: Hash = createHash('sha256')

  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.string(value)
        return
      case 'number':
        this.parts.push('d', String(value), ';')
        return
      case 'boolean':
        this.parts.push(value ? 't' : 'f')
        return
      case 'object':
        if (value === null) {
          this.parts.push('n')
        } else if (Array.isArray(value)) {
          this.parts.push('[')
          // JSON writes undefined array elements as null.
          for (const item of value) item === undefined ? this.parts.push('n') : this.value(item)
          this.parts.push(']')
        } else {
          this.parts.push('{')
          const record = value as Record<string, unknown>
          for (const key of Object.keys(record).sort()) {
            const item = record[key]
            if (item === undefined) continue
            this.string(key)
            this.value(item)
          }
          this.parts.push('}')
        }
        return
      default:
        // Not JSON (a body is parsed JSON, so never here): as JSON.stringify would write it.
        this.parts.push('x', String(JSON.stringify(value)), ';')
    }
  }

  string(text: string): void {
    if (!(text as WellFormed).isWellFormed()) {
      this.parts.push('j', JSON.stringify(text))
      return
    }
    this.parts.push('s', String(text.length), ':')
    if (text.length < DIRECT) {
      this.parts.push(text)
      return
    }
    this.#flush()
    this.#hash.update(text)
  }

  digest(): string {
    this.#flush()
    return this.#hash.digest('base64url')
  }

  #flush(): void {
    if (this.parts.length === 0) return
    this.#hash.update(this.parts.join(''))
    this.parts.length = 0
  }
}
