import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { withTimeout } from './with-timeout.js'

async function getJson(
  url: string,
  timeoutMs: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await withTimeout(fetch(url, { signal: AbortSignal.timeout(timeoutMs) }), timeoutMs + 200, url)
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>
  return { status: res.status, body }
}

function notOk(checks: unknown): string {
  const entries = Object.entries((checks ?? {}) as Record<string, unknown>)
  return entries
    .filter(([, v]) => v !== 'ok')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ')
}

/** Probe a running gateway's `/health`, `/health/ready` and `/health/startup`. */
export async function checkGateway(baseUrl: string, timeoutMs: number): Promise<CheckResult[]> {
  const base = baseUrl.replace(/\/+$/, '')
  const out: CheckResult[] = []
  const probe = async (
    path: string,
    judge: (r: { status: number; body: Record<string, unknown> }) => CheckResult[],
  ) => {
    try {
      out.push(...judge(await getJson(`${base}${path}`, timeoutMs)))
    } catch (err) {
      out.push(
        result(
          'gateway',
          path,
          'fail',
          `${base}${path} did not answer: ${messageOf(err)}`,
          codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
        ),
      )
    }
  }

  await probe('/health', ({ status, body }) => {
    const summary = `status ${String(body.status)}, version ${String(body.version)}, storage ${String(body.storage)}`
    const lines = [
      result(
        'gateway',
        '/health',
        status === 200 && body.status === 'healthy' ? 'ok' : 'fail',
        `HTTP ${status}: ${summary}`,
      ),
    ]
    for (const warning of Array.isArray(body.warnings) ? body.warnings : []) {
      lines.push(result('gateway', '/health', 'warn', String(warning), 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE'))
    }
    return lines
  })
  await probe('/health/ready', ({ status, body }) => [
    status === 200
      ? result('gateway', '/health/ready', 'ok', 'ready: database, policy and redis ok')
      : result(
          'gateway',
          '/health/ready',
          'fail',
          `HTTP ${status}: not ready (${notOk(body.checks) || String(body.status)})`,
        ),
  ])
  await probe('/health/startup', ({ status, body }) => {
    if (status === 200) return [result('gateway', '/health/startup', 'ok', 'started: models loaded')]
    const checks = (body.checks ?? {}) as Record<string, unknown>
    const loading = checks.models === 'loading' && notOk(checks) === 'models=loading'
    return [
      loading
        ? result(
            'gateway',
            '/health/startup',
            'warn',
            `HTTP ${status}: still starting (models loading); check again shortly`,
          )
        : result(
            'gateway',
            '/health/startup',
            'fail',
            `HTTP ${status}: ${notOk(checks) || String(body.status)}`,
          ),
    ]
  })
  return out
}
