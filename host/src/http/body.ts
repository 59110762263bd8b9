import type { IncomingMessage } from 'node:http'
import { GovError } from '@gov/core'

/**
 * Deepest nesting of arrays and objects a JSON body may have. Real requests
 * stay far below it (a tool schema rarely passes 10); a hostile body thousands
 * deep would overflow the stack of every recursive walk after the parse
 * (`JSON.stringify` for upstream, `structuredClone`, validators).
 */
export const DEFAULT_MAX_JSON_DEPTH = 64

/** Read the whole request body, refusing more than `limit` bytes with 413 `request_too_large`. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    req.resume()
    throw new GovError('request_too_large', `request body is larger than ${limit} bytes`, 413)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) {
      req.resume()
      throw new GovError('request_too_large', `request body is larger than ${limit} bytes`, 413)
    }
    chunks.push(chunk as Buffer)
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/**
 * Throw 400 `invalid_request` when the JSON text nests deeper than `maxDepth`.
 * One pass over the bytes with a counter, no recursion and no allocation, so it
 * runs before anything else walks the value. Brackets inside strings do not
 * count; malformed JSON is left for `JSON.parse` to reject.
 */
export function checkJsonDepth(buffer: Buffer, maxDepth: number): void {
  let depth = 0
  for (let i = 0; i < buffer.length; i++) {
    const byte = buffer[i]
    if (byte === QUOTE) i = stringEnd(buffer, i)
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > maxDepth) {
        throw new GovError(
          'invalid_request',
          `request body nests arrays and objects deeper than ${maxDepth} levels`,
          400,
          { limit: maxDepth },
        )
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--
  }
}

/**
 * Index of the quote closing the string that opens at `start` (or the end of
 * the buffer). Jumps from quote to quote with `indexOf` (native, so long
 * prompts cost little); a quote after an odd run of backslashes is escaped.
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

/**
 * Parse a JSON body; 400 `invalid_request` when it nests deeper than
 * `maxDepth`, 400 `invalid_json` when it is not JSON, 400 `invalid_request`
 * when `requireObject` and it is not an object.
 */
export function parseJson(buffer: Buffer, requireObject = true, maxDepth = DEFAULT_MAX_JSON_DEPTH): unknown {
  checkJsonDepth(buffer, maxDepth)
  let value: unknown
  try {
    value = JSON.parse(buffer.toString('utf8'))
  } catch (err) {
    throw new GovError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`, 400)
  }
  if (requireObject && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new GovError('invalid_request', 'request body must be a JSON object', 400)
  }
  return value
}
