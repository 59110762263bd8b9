import type { Usage } from '@gov/core'

/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True when the value is absent from a JSON body (`undefined`) or explicitly `null`. */
export function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null
}

/**
 * An answer's token counts: each field present only when the provider reported
 * a number (built without spreads: hot path). `input` is the total input count
 * (cached tokens included); `cached` and `cacheWrite` are the parts of it read
 * from and written to the prompt cache; `cacheWrite1h` the part of the writes
 * kept for one hour (kept only when it is a number from 0 to `cacheWrite`).
 */
export function tokenUsage(
  input: unknown,
  output: unknown,
  cached?: unknown,
  cacheWrite?: unknown,
  cacheWrite1h?: unknown,
): Usage {
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  if (typeof input === 'number') usage.inputTokens = input
  if (typeof output === 'number') usage.outputTokens = output
  if (typeof cached === 'number') usage.cachedInputTokens = cached
  if (typeof cacheWrite === 'number') {
    usage.cacheWriteInputTokens = cacheWrite
    // The one-hour part of the writes: kept only when it can be a part of them.
    if (typeof cacheWrite1h === 'number' && cacheWrite1h >= 0 && cacheWrite1h <= cacheWrite)
      usage.cacheWrite1hInputTokens = cacheWrite1h
  }
  return usage
}
