/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True when the value is absent from a JSON body (`undefined`) or explicitly `null`. */
export function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null
}

/** An answer's token counts: each field present only when the provider reported a number (built without spreads: hot path). */
export function tokenUsage(input: unknown, output: unknown): { inputTokens?: number; outputTokens?: number } {
  const usage: { inputTokens?: number; outputTokens?: number } = {}
  if (typeof input === 'number') usage.inputTokens = input
  if (typeof output === 'number') usage.outputTokens = output
  return usage
}
