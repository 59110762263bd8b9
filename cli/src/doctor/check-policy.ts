import { readFile } from 'node:fs/promises'
import { compilePolicySet, DEFAULT_POLICY_FILE, SCHEMA_FILE } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

interface Problem {
  message: string
  line?: number
  column?: number
  policy?: string
}

/**
 * The Cedar policy file the gateway would load (`GOV_POLICY_FILE`, else the
 * shipped default), parsed and validated against gov's schema with the
 * gateway's own compiler, so the doctor and `gov serve` cannot disagree.
 */
export async function checkPolicy(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const configured = env.GOV_POLICY_FILE?.trim()
  const path = configured || DEFAULT_POLICY_FILE
  const which = configured ? 'GOV_POLICY_FILE' : 'default policy'
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    return [
      result(
        'policy',
        which,
        'fail',
        `${path} cannot be read (${codeOf(err) ?? messageOf(err)}): with no policy every request is answered 403; fix the path or mount the file`,
        'GOV_ERR_POLICY_INVALID',
      ),
    ]
  }
  try {
    const compiled = compilePolicySet(text, await readFile(SCHEMA_FILE, 'utf8'))
    const out = [
      result(
        'policy',
        which,
        'ok',
        `${path}: ${compiled.ids.length} policies (${compiled.ids.join(', ')}) valid against gov's schema`,
      ),
    ]
    for (const warning of compiled.warnings) out.push(result('policy', which, 'warn', warning))
    return out
  } catch (err) {
    const problems = ((err as { problems?: Problem[] }).problems ?? []).slice(0, 3)
    const where = problems
      .map((p) => `${p.line ? `${p.line}:${p.column} ` : ''}${p.policy ? `[${p.policy}] ` : ''}${p.message}`)
      .join('; ')
    return [
      result(
        'policy',
        which,
        'fail',
        `${path}: ${messageOf(err)}${where ? ` — ${where}` : ''}; the gateway refuses to load it`,
        codeOf(err) ?? 'GOV_ERR_POLICY_INVALID',
      ),
    ]
  }
}
