/**
 * Reading database errors. drizzle wraps driver errors (`DrizzleQueryError`),
 * and `pg` and PGlite both expose the SQLSTATE as `code` and the violated
 * constraint as `constraint`.
 */

/** SQLSTATE codes the store turns into coded errors. */
export const SqlState = {
  UNIQUE_VIOLATION: '23505',
  FOREIGN_KEY_VIOLATION: '23503',
  /**
   * Deleting a row an `on delete restrict` foreign key still points at. Postgres 18
   * (PGlite) raises this; Postgres 15 raises FOREIGN_KEY_VIOLATION for the same case.
   */
  RESTRICT_VIOLATION: '23001',
} as const

/** The SQLSTATE and constraint of a database error, or undefined when `error` is not one. */
export function readSqlError(error: unknown): { code: string; constraint: string | undefined } | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown }
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === 'string' ? candidate.constraint : undefined,
      }
    }
    current = candidate.cause
  }
  return undefined
}
