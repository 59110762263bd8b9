/** What a result file says about where it was measured: the commit and the machine's load. */
import { execFileSync } from 'node:child_process'
import { loadavg } from 'node:os'

/** `abc1234` or `abc1234 + uncommitted changes`; `unknown commit` outside git. */
export function commitLabel(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim()
    return dirty ? `${head} + uncommitted changes in the tree` : head
  } catch {
    return 'unknown commit'
  }
}

/** The 1, 5 and 15 minute load averages, e.g. `16.4 / 19.6 / 21.4`. */
export function loadLabel(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}
