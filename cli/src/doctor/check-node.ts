import { type CheckResult, result } from './check-result.js'

/** Oldest Node.js gov supports (`engines.node`). */
export const MIN_NODE = [20, 11, 0] as const

/** Check the Node.js version against {@link MIN_NODE}. */
export function checkNode(version = process.versions.node): CheckResult {
  const parts = version.split('.').map((n) => Number.parseInt(n, 10))
  let cmp = 0
  for (let i = 0; i < MIN_NODE.length && cmp === 0; i++) cmp = Math.sign((parts[i] ?? 0) - MIN_NODE[i]!)
  const min = MIN_NODE.join('.')
  return cmp >= 0
    ? result('node', 'version', 'ok', `Node.js ${version} (≥ ${min})`)
    : result(
        'node',
        'version',
        'fail',
        `Node.js ${version} is older than ${min}; upgrade Node.js`,
        'GOV_ERR_DOCTOR_NODE_TOO_OLD',
      )
}
