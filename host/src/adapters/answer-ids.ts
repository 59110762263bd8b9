import { randomBytes } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A random id in the vendors' style: prefix plus `length` base-62 characters. */
export function makeAnswerId(prefix: string, length: number): string {
  const bytes = randomBytes(length)
  let id = prefix
  // 256 is not a multiple of 62; the slight bias does not matter for ids.
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length]
  return id
}
