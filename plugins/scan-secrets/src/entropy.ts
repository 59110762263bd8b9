/** Counts of ASCII characters, reused by every call (the scanner is synchronous), so entropy allocates nothing. */
const ASCII_COUNTS = new Int32Array(128)

/**
 * Shannon entropy of a string in bits per character (0 for the empty string).
 * Random base62 text of length n approaches min(log2(62), log2(n)).
 */
export function shannonEntropy(value: string): number {
  const n = value.length
  if (n === 0) return 0
  let other: Map<number, number> | undefined
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 128) ASCII_COUNTS[c]++
    else {
      other ??= new Map()
      other.set(c, (other.get(c) ?? 0) + 1)
    }
  }
  let bits = 0
  // Visit each distinct character once, clearing its count for the next call.
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c >= 128 || ASCII_COUNTS[c] === 0) continue
    const p = ASCII_COUNTS[c] / n
    bits -= p * Math.log2(p)
    ASCII_COUNTS[c] = 0
  }
  if (other) {
    for (const count of other.values()) {
      const p = count / n
      bits -= p * Math.log2(p)
    }
  }
  return bits
}

/**
 * The entropy a value must reach to count as random, given a configured
 * threshold. A string of n characters cannot exceed log2(n) bits, so short
 * values (human passwords, 10-character tokens) are held to a bar that scales
 * with their length instead of being rejected outright.
 */
export function effectiveEntropyThreshold(length: number, threshold: number): number {
  if (length <= 1) return threshold
  return Math.min(threshold, Math.log2(length) - 0.5)
}
