import { endianness } from 'node:os'

const LITTLE_ENDIAN = endianness() === 'LE'

/**
 * The UTF-16 code units of a text as a typed array, for loops that read every
 * character. `String.prototype.charCodeAt` is ~3× slower in any process where
 * some module subclasses `String` (ioredis does, so the gateway always has
 * one): V8 then stops inlining string methods. Reading a typed array is not
 * affected, and the copy costs far less than one pass of `charCodeAt`.
 */
export function codeUnits(text: string): Uint16Array {
  if (LITTLE_ENDIAN) {
    const bytes = Buffer.from(text, 'utf16le')
    // Pooled buffers start at multiples of 8; the check keeps the view safe if that ever changes.
    if (bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, text.length)
  }
  const units = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i)
  return units
}

/** Largest text (code units) whose units {@link scratchCodeUnits} writes into its kept buffer. */
const MAX_SCRATCH_UNITS = 32 * 1024
let scratch: Buffer | undefined

/**
 * {@link codeUnits} of a text, written into a buffer kept between calls: a
 * view valid only until the next call, for a caller that reads it within
 * one synchronous call (the analyser). Skips allocating a buffer per text,
 * which cost more than the copy. Texts longer than 32 K units get their own.
 */
export function scratchCodeUnits(text: string): Uint16Array {
  if (!LITTLE_ENDIAN || text.length > MAX_SCRATCH_UNITS) return codeUnits(text)
  scratch ??= Buffer.allocUnsafeSlow(MAX_SCRATCH_UNITS * 2)
  scratch.write(text, 0, 'utf16le')
  return new Uint16Array(scratch.buffer, scratch.byteOffset, text.length)
}
