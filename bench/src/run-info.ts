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

/**
 * gov's storage for a memory run: PostgreSQL and Redis when
 * `GOV_BENCH_DATABASE_URL` / `GOV_BENCH_REDIS_URL` are set, else the in-memory
 * store with its audit capped at 1 000 records (the cap keeps the audit from
 * counting as growth).
 */
export function storageEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  if (process.env.GOV_BENCH_DATABASE_URL) env.DATABASE_URL = process.env.GOV_BENCH_DATABASE_URL
  else env.GOV_MEMORY_AUDIT_MAX = '1000'
  if (process.env.GOV_BENCH_REDIS_URL) env.REDIS_URL = process.env.GOV_BENCH_REDIS_URL
  return env
}

/** What {@link storageEnv} chose, for a result file's header. */
export function storageLabel(env = storageEnv()): string {
  return `${env.DATABASE_URL ? 'PostgreSQL' : 'in-memory store (GOV_MEMORY_AUDIT_MAX=1000)'}${env.REDIS_URL ? ' + Redis' : ''}`
}
