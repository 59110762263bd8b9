import type { IncomingMessage } from 'node:http'
import { GovError } from '@gov/core'

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

/** Parse a JSON body; 400 `invalid_json` when it is not JSON, 400 `invalid_request` when `requireObject` and it is not an object. */
export function parseJson(buffer: Buffer, requireObject = true): unknown {
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
