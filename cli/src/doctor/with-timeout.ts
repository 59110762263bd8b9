/** The error a probe gets when it does not finish in time. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT'
}

/**
 * Race `work` against a timer. Diagnostics must finish even when a host
 * swallows packets, so every network probe goes through this.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(`${what} did not answer within ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
