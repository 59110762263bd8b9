/** Outcome of one doctor check: `fail` makes `gov doctor` exit 1, `warn` does not. */
export type CheckStatus = 'ok' | 'warn' | 'fail'

/** One line of the doctor's report. */
export interface CheckResult {
  /** Area checked: `node`, `config`, `storage`, `redis`, `provider`, `keys`, `plugins`, `presets`, `production`, `gateway`. */
  readonly area: string
  /** What exactly, within the area (`openai`, `detect_pii`, `/health/ready`…). */
  readonly subject: string
  readonly status: CheckStatus
  /** One line for the operator: what was found and, when not ok, what it means or what to change. */
  readonly detail: string
  /** Stable code of the error behind a warn or fail, when there is one. */
  readonly code?: string | undefined
}

/** Build a result (keeps call sites to one line). */
export function result(
  area: string,
  subject: string,
  status: CheckStatus,
  detail: string,
  code?: string,
): CheckResult {
  return code === undefined ? { area, subject, status, detail } : { area, subject, status, detail, code }
}

/** The code of an error (`GOV_ERR_…`, `ECONNREFUSED`, Postgres SQLSTATE), when it has one. */
export function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code
  return typeof code === 'string' && code ? code : undefined
}

/** The first line of an error message; the report is one line per check. */
export function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  return message.split('\n', 1)[0]?.trim() || codeOf(err) || 'unknown error'
}
