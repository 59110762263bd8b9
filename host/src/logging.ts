import { type Logger, pino } from 'pino'

/** Paths pino must never print: credentials of callers, providers and admins. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.api_key',
  '*.adminApiKey',
  '*.password',
  '*.token',
]

/** The process logger (JSON lines on stdout). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service: 'gov' }, redact: { paths: REDACT, censor: '[redacted]' } },
    destination ?? process.stdout,
  )
}

export type { Logger }
