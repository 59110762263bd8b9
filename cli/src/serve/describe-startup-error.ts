/** Codes `gov serve` prints for start-up failures that are not already coded by the host. */
export const ServeErrorCodes = {
  /** The port is taken by another process. */
  PORT_IN_USE: 'GOV_ERR_SERVE_PORT_IN_USE',
  /** The process may not bind the address (privileged port, foreign address). */
  ADDRESS_DENIED: 'GOV_ERR_SERVE_ADDRESS_DENIED',
  /** Anything else that stopped the gateway from starting. */
  START_FAILED: 'GOV_ERR_SERVE_START_FAILED',
  /** Closing the gateway after a signal threw. */
  CLOSE_FAILED: 'GOV_ERR_SERVE_CLOSE_FAILED',
  /** Closing the gateway after a signal did not finish in time. */
  CLOSE_TIMEOUT: 'GOV_ERR_SERVE_CLOSE_TIMEOUT',
} as const

interface SystemError {
  code?: unknown
  message?: unknown
  address?: unknown
  port?: unknown
}

/**
 * One line for the terminal saying why the gateway did not start: `<code>: <what to change>`.
 * Operators read it, so it never carries a stack; coded errors (ConfigError,
 * GovError) keep their own code and message, which already say what to change.
 */
export function describeStartupError(err: unknown): { code: string; line: string } {
  const e = (err ?? {}) as SystemError
  const where = typeof e.address === 'string' ? `${e.address}:${String(e.port)}` : 'the configured address'
  if (e.code === 'EADDRINUSE') {
    return {
      code: ServeErrorCodes.PORT_IN_USE,
      line: `${where} is already in use; stop the other process or choose another GOV_PORT`,
    }
  }
  if (e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
    return {
      code: ServeErrorCodes.ADDRESS_DENIED,
      line: `cannot listen on ${where} (${e.code}); use a port above 1023 or a GOV_HOST this machine owns`,
    }
  }
  const message = firstLine(typeof e.message === 'string' ? e.message : String(err))
  if (typeof e.code === 'string' && e.code.startsWith('GOV_ERR_')) return { code: e.code, line: message }
  if (typeof e.code === 'string' && /^[a-z_]+$/.test(e.code)) return { code: e.code, line: message }
  return { code: ServeErrorCodes.START_FAILED, line: message }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() || 'unknown error'
}
