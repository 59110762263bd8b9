import type { CheckResult, CheckStatus } from './check-result.js'

/** The machine-readable report (`gov doctor --json`). */
export interface DoctorReport {
  /** False when any check failed (the exit code is 1 then). */
  ok: boolean
  version: string
  counts: Record<CheckStatus, number>
  checks: CheckResult[]
}

/** Summarise results into a report. */
export function buildReport(checks: CheckResult[], version: string): DoctorReport {
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0 }
  for (const c of checks) counts[c.status]++
  return { ok: counts.fail === 0, version, counts, checks }
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' }

/** The report as a table: one `ok / warn / FAIL` line per check, then a summary line. */
export function renderTable(report: DoctorReport): string {
  const areaWidth = Math.max(...report.checks.map((c) => c.area.length), 4)
  const subjectWidth = Math.min(Math.max(...report.checks.map((c) => c.subject.length), 7), 28)
  const lines = [`gov doctor (gov ${report.version})`, '']
  for (const c of report.checks) {
    const code = c.code && c.status !== 'ok' ? ` [${c.code}]` : ''
    lines.push(
      `${MARK[c.status]}  ${c.area.padEnd(areaWidth)}  ${c.subject.padEnd(subjectWidth)}  ${c.detail}${code}`,
    )
  }
  const { ok, warn, fail } = report.counts
  lines.push('', `${ok} ok, ${warn} warn, ${fail} fail${fail ? ': fix the FAIL lines before serving' : ''}`)
  return `${lines.join('\n')}\n`
}
