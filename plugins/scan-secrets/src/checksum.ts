const CRC_TABLE = buildCrcTable()

function buildCrcTable(): Int32Array {
  const table = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  return table
}

/** CRC-32 (IEEE 802.3) of the code units of an ASCII string, as an unsigned integer. */
export function crc32(value: string): number {
  let crc = -1
  for (let i = 0; i < value.length; i++) crc = (crc >>> 8) ^ CRC_TABLE[(crc ^ value.charCodeAt(i)) & 0xff]
  return (crc ^ -1) >>> 0
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Base62 (0-9A-Za-z) encoding of a non-negative integer, left-padded with `0` to `width`. */
export function encodeBase62(value: number, width: number): string {
  let out = ''
  let n = value
  while (n > 0) {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out.padStart(width, '0')
}

/**
 * True when a GitHub-format token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`) or a
 * new-format npm token (`npm_`) carries a valid checksum: its last six
 * characters are the base62 CRC-32 of the thirty random characters before
 * them. Real tokens always pass; hand-made look-alikes almost never do.
 */
export function hasValidBase62Checksum(token: string, prefixLength: number): boolean {
  const body = token.slice(prefixLength)
  if (body.length !== 36) return false
  return encodeBase62(crc32(body.slice(0, 30)), 6) === body.slice(30)
}
