import { constants } from 'node:fs'
import { access, readFile, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { MIGRATIONS_FOLDER } from '@gov/host'
import pg from 'pg'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { connectionHint } from './connection-hint.js'
import { withTimeout } from './with-timeout.js'

/** Where a database URL points, without its credentials. */
export function describeDatabaseUrl(url: string): string {
  const u = new URL(url)
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`
}

const LOST_ON_RESTART =
  'pipelines, agents, keys and the audit trail live in process memory and are lost when it stops'

/** Options of {@link checkStorage}. */
export interface StorageCheckInput {
  databaseUrl: string | undefined
  dataDir: string | undefined
  production: boolean
  timeoutMs: number
}

/**
 * Storage as `gov serve` would choose it: PostgreSQL when `DATABASE_URL` is set
 * (connect, report version, TLS and migrations; nothing is changed), PGlite in
 * `GOV_DATA_DIR`, otherwise memory (and what that means for durability).
 */
export async function checkStorage(input: StorageCheckInput): Promise<CheckResult[]> {
  const out: CheckResult[] = []
  if (input.databaseUrl) {
    if (input.dataDir)
      out.push(result('storage', 'GOV_DATA_DIR', 'warn', 'ignored: DATABASE_URL is set and wins'))
    out.push(await probePostgres(input.databaseUrl, input.production, input.timeoutMs))
    return out
  }
  if (input.dataDir) {
    out.push(await probeDataDir(input.dataDir, input.production))
    return out
  }
  out.push(
    result(
      'storage',
      'memory',
      'warn',
      input.production
        ? `production-unsafe: no DATABASE_URL, so ${LOST_ON_RESTART}; set DATABASE_URL`
        : `memory (no DATABASE_URL or GOV_DATA_DIR): ${LOST_ON_RESTART}`,
      input.production ? 'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE' : undefined,
    ),
  )
  return out
}

async function probePostgres(url: string, production: boolean, timeoutMs: number): Promise<CheckResult> {
  let where: string
  try {
    where = describeDatabaseUrl(url)
  } catch {
    return result(
      'storage',
      'postgres',
      'fail',
      'DATABASE_URL is not a URL (postgres://user:password@host:5432/db)',
      'GOV_ERR_CONFIG_INVALID',
    )
  }
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  })
  // An error after connect (server gone) arrives as an event; without a listener it would crash the doctor.
  client.on('error', () => {})
  try {
    await withTimeout(client.connect(), timeoutMs + 500, `postgres at ${where}`)
    const { rows } = await client.query<{ version: string; ssl: boolean | null; migrations: string | null }>(
      `select current_setting('server_version') as version,
              (select ssl from pg_stat_ssl where pid = pg_backend_pid()) as ssl,
              to_regclass('drizzle.__drizzle_migrations')::text as migrations`,
    )
    const row = rows[0]!
    const shipped = await shippedMigrations()
    let applied = `no gov tables yet (gov serve applies the ${shipped.length} migrations at start)`
    if (row.migrations) {
      const done = await client.query<{ n: string; last: string | null }>(
        'select count(*)::text as n, max(created_at)::text as last from drizzle.__drizzle_migrations',
      )
      const n = Number(done.rows[0]?.n ?? 0)
      const last = Number(done.rows[0]?.last ?? 0)
      const newest = shipped.at(-1) ?? 0
      if (last > newest) {
        return result(
          'storage',
          'postgres',
          'fail',
          `postgres at ${where}: the database has migrations newer than this gov (${n} applied, ${shipped.length} shipped): it was upgraded by a newer version; run that version or restore the backup taken before the upgrade`,
          'GOV_ERR_DOCTOR_MIGRATIONS_AHEAD',
        )
      }
      applied =
        last < newest
          ? `${n} of ${shipped.length} migrations applied; the rest are applied when gov serve starts`
          : `migrations current (${n} of ${shipped.length})`
    }
    const detail = `postgres at ${where}: PostgreSQL ${row.version}, TLS ${row.ssl ? 'on' : 'off'}, ${applied}`
    if (production && !row.ssl) {
      return result(
        'storage',
        'postgres',
        'warn',
        `production-unsafe: ${detail}; add ?sslmode=require`,
        'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
      )
    }
    return result('storage', 'postgres', 'ok', detail)
  } catch (err) {
    return result(
      'storage',
      'postgres',
      'fail',
      `cannot use postgres at ${where}: ${messageOf(err)}; ${connectionHint(err, 'postgres')}`,
      codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
    )
  } finally {
    await client.end().catch(() => {})
  }
}

/** `when` of every migration this gov ships (drizzle's journal), oldest first. */
async function shippedMigrations(): Promise<number[]> {
  const journal = JSON.parse(await readFile(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[]
  }
  return journal.entries.map((e) => e.when)
}

async function probeDataDir(dir: string, production: boolean): Promise<CheckResult> {
  const path = resolve(dir)
  const meaning =
    'embedded PostgreSQL (PGlite): survives restarts on this machine; one gateway process per folder'
  try {
    const info = await stat(path).catch(() => undefined)
    // A folder that does not exist yet is created at start; its parent must be writable.
    await access(info ? path : dirname(path), constants.W_OK)
    if (info && !info.isDirectory()) {
      return result(
        'storage',
        'pglite',
        'fail',
        `GOV_DATA_DIR ${path} is a file, not a folder`,
        'GOV_ERR_CONFIG_INVALID',
      )
    }
    const detail = `${path}${info ? '' : ' (created at start)'}: ${meaning}`
    return production
      ? result(
          'storage',
          'pglite',
          'warn',
          `${detail}; replicas cannot share it, use DATABASE_URL to scale out`,
        )
      : result('storage', 'pglite', 'ok', detail)
  } catch (err) {
    return result(
      'storage',
      'pglite',
      'fail',
      `GOV_DATA_DIR ${path} is not writable: ${messageOf(err)}`,
      codeOf(err),
    )
  }
}
