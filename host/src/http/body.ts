import { isUtf8 } from 'node:buffer'
import type { IncomingMessage } from 'node:http'
import { GovError } from '@gov/core'

/**
 * Deepest nesting of arrays and objects a JSON body may have. Real requests
 * stay far below it (a tool schema rarely passes 10); a hostile body thousands
 * deep would overflow the stack of every recursive walk after the parse
 * (`JSON.stringify` for upstream, `structuredClone`, validators).
 */
export const DEFAULT_MAX_JSON_DEPTH = 64

function closedEarly(): Error {
  return Object.assign(new Error('the request closed before its body ended'), { code: 'ECONNRESET' })
}

function tooLarge(limit: number): GovError {
  return new GovError('request_too_large', `request body is larger than ${limit} bytes`, 413)
}

/**
 * Read the whole request body, refusing more than `limit` bytes with 413
 * `request_too_large` (the rest of a refused body is read and dropped, so the
 * answer can still be written). Listens for the stream's events rather than
 * iterating it: an async iterator costs a few µs and promises per call. A
 * stream that fails or closes before its end rejects, also when that happened
 * before this was called; a body already read to its end is empty.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    req.resume()
    return Promise.reject(tooLarge(limit))
  }
  // Already over before this was called (an await came first): its events have fired.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0))
  if (req.destroyed) return Promise.reject(closedEarly())
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        stop()
        req.resume()
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size))
    }
    const onError = (err: Error) => {
      stop()
      reject(err)
    }
    const onClose = () => {
      stop()
      reject(closedEarly())
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const COLON = 0x3a

/**
 * Throw 400 `invalid_request` when the JSON text nests deeper than `maxDepth`.
 * One pass over the bytes with a counter, no recursion and no allocation, so it
 * runs before anything else walks the value. Brackets inside strings do not
 * count; malformed JSON is left for `JSON.parse` to reject. Returns how many
 * object keys the text holds (see {@link jsonKeysIn}), duplicates included.
 */
export function checkJsonDepth(buffer: Buffer, maxDepth: number): number {
  const keys = jsonKeysIn(buffer, maxDepth)
  if (keys < 0) {
    throw new GovError(
      'invalid_request',
      `request body nests arrays and objects deeper than ${maxDepth} levels`,
      400,
      { limit: maxDepth },
    )
  }
  return keys
}

/**
 * How many object keys the JSON text holds, duplicates included (a string
 * followed by `:`), or -1 when it nests arrays and objects deeper than
 * `maxDepth`. One pass over the bytes outside strings; strings are jumped
 * with `indexOf`. For well-formed JSON only (malformed text gives a count that
 * means nothing; `JSON.parse` rejects it anyway).
 */
export function jsonKeysIn(buffer: Buffer, maxDepth: number): number {
  let depth = 0
  let keys = 0
  const end = buffer.length
  for (let i = 0; i < end; i++) {
    const byte = buffer[i]
    if (byte === QUOTE) {
      i = stringEnd(buffer, i)
      let next = i + 1
      while (next < end && isJsonSpace(buffer[next] as number)) next++
      if (buffer[next] === COLON) {
        keys++
        i = next
      }
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) return -1
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--
  }
  return keys
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

/**
 * How many keys the objects of a parsed JSON value hold, all levels. `JSON.parse`
 * keeps one key of a name per object (the last), so this equals
 * {@link jsonKeysIn} of its text exactly when no object of the text repeats a key.
 * Iterative: a provider's answer is not depth-checked.
 */
export function jsonKeysOf(value: unknown): number {
  let keys = 0
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null) continue
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i]
        if (typeof item === 'object' && item !== null) stack.push(item)
      }
      continue
    }
    const names = Object.keys(v)
    keys += names.length
    for (let i = 0; i < names.length; i++) {
      const item = (v as Record<string, unknown>)[names[i] as string]
      if (typeof item === 'object' && item !== null) stack.push(item)
    }
  }
  return keys
}

/**
 * True when `bytes` say exactly what `value` (their `JSON.parse`) holds to any
 * reader, so they can be sent on in place of `JSON.stringify(value)`: they are
 * valid UTF-8 (`toString` would turn a bad sequence into U+FFFD that another
 * decoder may read otherwise) and no object repeats a key (`JSON.parse` keeps
 * the last, some parsers the first, so gov and the reader could see different
 * values). `keys` is {@link jsonKeysIn} of the bytes. Numbers are the same
 * decimal text gov read as a double, whitespace and escapes mean nothing.
 */
export function bytesMeanValue(bytes: Buffer, keys: number, value: unknown): boolean {
  return keys >= 0 && isUtf8(bytes) && jsonKeysOf(value) === keys
}

/**
 * Index of the quote closing the string that opens at `start` (or the end of
 * the buffer). Jumps from quote to quote with `indexOf` (native, so long
 * prompts cost little); a quote after an odd run of backslashes is escaped.
 * (Scanning a string's first bytes in JS instead was tried: under callgrind it
 * cost ~6 k instructions per call more than these `indexOf` calls.)
 */
function stringEnd(buffer: Buffer, start: number): number {
  let at = start
  for (;;) {
    at = buffer.indexOf(QUOTE, at + 1)
    if (at < 0) return buffer.length
    let slashes = 0
    while (buffer[at - 1 - slashes] === BACKSLASH) slashes++
    if (slashes % 2 === 0) return at
  }
}

const LETTER_U = 0x75

/** The value of four hex digits at `at`, or -1. */
function hex4(buffer: Buffer, at: number): number {
  let value = 0
  for (let i = at; i < at + 4; i++) {
    const c = buffer[i] ?? 0
    const digit =
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : c >= 0x41 && c <= 0x46
            ? c - 0x37
            : -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

function loneSurrogate(): GovError {
  return new GovError(
    'invalid_request',
    'request body holds a lone UTF-16 surrogate escape (\\uD800–\\uDFFF outside a pair), which is not Unicode text',
    400,
  )
}

/**
 * Throw 400 `invalid_request` when a JSON string holds a lone surrogate. JSON
 * text may escape one (`"\ud800"`), but it is not Unicode: providers refuse
 * it, and canonical JSON, `jsonb` and hashing of the text fail on it. Raw
 * UTF-8 cannot carry one (invalid bytes decode to U+FFFD), so only `\u`
 * escapes are checked, found with `indexOf` (most bodies have none).
 */
export function checkSurrogates(buffer: Buffer): void {
  let at = buffer.indexOf('\\u', 0, 'latin1')
  while (at >= 0) {
    let slashes = 0
    while (buffer[at - 1 - slashes] === BACKSLASH) slashes++
    let next = at + 2
    // An even run of backslashes before it means this backslash is itself escaped: not an escape.
    if (slashes % 2 === 0) {
      const unit = hex4(buffer, at + 2)
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = buffer[at + 6] === BACKSLASH && buffer[at + 7] === LETTER_U ? hex4(buffer, at + 8) : -1
        if (low < 0xdc00 || low > 0xdfff) throw loneSurrogate()
        next = at + 12
      } else if (unit >= 0xdc00 && unit <= 0xdfff) throw loneSurrogate()
    }
    at = buffer.indexOf('\\u', next, 'latin1')
  }
}

/** A parsed JSON body and how many object keys its text holds ({@link jsonKeysIn}). */
export interface ParsedBody {
  readonly value: unknown
  readonly keys: number
}

/**
 * Parse a JSON body; 400 `invalid_request` when it nests deeper than
 * `maxDepth` or holds a lone surrogate, 400 `invalid_json` when it is not
 * JSON, 400 `invalid_request` when `requireObject` and it is not an object.
 */
export function parseJson(buffer: Buffer, requireObject = true, maxDepth = DEFAULT_MAX_JSON_DEPTH): unknown {
  return parseJsonCounted(buffer, requireObject, maxDepth).value
}

/** {@link parseJson}, also giving the key count of the text (for {@link bytesMeanValue}). */
export function parseJsonCounted(
  buffer: Buffer,
  requireObject = true,
  maxDepth = DEFAULT_MAX_JSON_DEPTH,
): ParsedBody {
  const keys = checkJsonDepth(buffer, maxDepth)
  checkSurrogates(buffer)
  let value: unknown
  try {
    value = JSON.parse(buffer.toString('utf8'))
  } catch (err) {
    throw new GovError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`, 400)
  }
  if (requireObject && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new GovError('invalid_request', 'request body must be a JSON object', 400)
  }
  return { value, keys }
}
