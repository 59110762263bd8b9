/** Sends generated requests to a running gateway and collects every 5xx gov itself answered. */

/** `GOV_FUZZ_SEED` replays another run; the default keeps CI deterministic. */
export const fuzzSeed = Number(process.env.GOV_FUZZ_SEED ?? 20_261_124)

export interface FuzzCase {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

export interface FuzzFailure {
  index: number
  status: number | 'no answer'
  code: unknown
  request: string
}

/** Show a failing case in a form short enough for a test report. */
function describeCase(c: FuzzCase): string {
  const body =
    c.body === undefined
      ? ''
      : ` ${c.body.length > 300 ? `${c.body.slice(0, 300)}…(${c.body.length})` : c.body}`
  return `${c.method} ${c.path} ${JSON.stringify(c.headers).slice(0, 300)}${body}`
}

/**
 * Run the cases, `concurrency` at a time. A 5xx counts as a failure unless
 * the mock provider produced it (its own error body, passed through by gov).
 */
export async function runCases(
  url: string,
  cases: readonly FuzzCase[],
  concurrency = 8,
): Promise<{ statuses: Map<number, number>; codes: Map<string, number>; failures: FuzzFailure[] }> {
  const statuses = new Map<number, number>()
  /** `status code` → count: shows which checks the cases reach. */
  const codes = new Map<string, number>()
  const failures: FuzzFailure[] = []
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const index = next++
      const c = cases[index]!
      try {
        const res = await fetch(url + c.path, {
          method: c.method,
          headers: c.headers,
          ...(c.body !== undefined ? { body: c.body } : {}),
          // Only so a hung request cannot hang the suite; a loaded CI machine can be slow.
          signal: AbortSignal.timeout(120_000),
        })
        const text = await res.text()
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        let body: { error?: { type?: unknown; code?: unknown } } | undefined
        try {
          body = JSON.parse(text)
        } catch {}
        const code = `${res.status} ${String(body?.error?.code ?? body?.error?.type ?? '')}`
        codes.set(code, (codes.get(code) ?? 0) + 1)
        if (res.status < 500) continue
        if (body?.error?.type === 'mock_error') continue
        failures.push({
          index,
          status: res.status,
          code: body?.error?.code ?? text.slice(0, 200),
          request: describeCase(c),
        })
      } catch (err) {
        failures.push({ index, status: 'no answer', code: String(err), request: describeCase(c) })
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { statuses, codes, failures }
}
