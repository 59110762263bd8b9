import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('../../../scripts/backup.sh', import.meta.url))
const DATABASE_URL = process.env.GOV_TEST_DATABASE_URL
const DAY_MS = 86_400_000

async function backup(env: NodeJS.ProcessEnv, ...args: string[]) {
  try {
    const { stdout, stderr } = await run('sh', [SCRIPT, ...args], { env: { PATH: process.env.PATH, ...env } })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** A file that looks like an old dump, `days` old. */
function oldDump(dir: string, name: string, days: number): string {
  const stamp = new Date(Date.now() - days * DAY_MS).toISOString().replace(/[-:]|\.\d+/g, '')
  const file = join(dir, `${name}-${stamp}.dump`)
  writeFileSync(file, 'old')
  const when = new Date(Date.now() - days * DAY_MS)
  utimesSync(file, when, when)
  return file
}

describe('scripts/backup.sh', () => {
  it('refuses bad arguments and an empty target list with exit 2', async () => {
    assert.equal((await backup({}, '--keep-days', 'x')).code, 2)
    assert.equal((await backup({}, '--keep-days', '0')).code, 2)
    assert.equal((await backup({}, '--bogus')).code, 2)
    const none = await backup({ GOV_BACKUP_DIR: tmpdir() })
    assert.equal(none.code, 2)
    assert.match(none.stderr, /set GOV_BACKUP_DATABASE_URL/)
  })

  describe('on a real PostgreSQL', { skip: !DATABASE_URL && 'GOV_TEST_DATABASE_URL is unset' }, () => {
    const names = { gov: `gov_backup_svc_${process.pid}`, vault: `gov_backup_vault_${process.pid}` }
    const urls: Record<string, string> = {}
    let admin: pg.Client
    let dir: string
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gov-backup-'))
      admin = new pg.Client({ connectionString: DATABASE_URL })
      await admin.connect()
      for (const [key, db] of Object.entries(names)) {
        await admin.query(`drop database if exists ${db}`)
        await admin.query(`create database ${db}`)
        const u = new URL(DATABASE_URL!)
        u.pathname = `/${db}`
        urls[key] = u.toString()
        const c = new pg.Client({ connectionString: urls[key] })
        await c.connect()
        await c.query(`create table ${key}_marker (id int primary key, note text)`)
        await c.query(`insert into ${key}_marker values (1, 'kept by the backup')`)
        await c.end()
      }
    })
    after(async () => {
      for (const db of Object.values(names)) await admin.query(`drop database if exists ${db} with (force)`)
      await admin.end()
      rmSync(dir, { recursive: true, force: true })
    })

    it('dumps both databases, readable by pg_restore, and prunes dumps older than 30 days', async () => {
      const stale = oldDump(dir, 'gov', 31)
      const recent = oldDump(dir, 'gov', 29)
      const staleVault = oldDump(dir, 'vault', 45)
      const result = await backup({
        GOV_BACKUP_DIR: dir,
        GOV_BACKUP_DATABASE_URL: urls.gov,
        VAULT_BACKUP_DATABASE_URL: urls.vault,
      })
      assert.equal(result.code, 0, result.stdout + result.stderr)
      const files = readdirSync(dir).sort()
      const fresh = files.filter(
        (f) => !f.endsWith('.partial') && ![stale, recent, staleVault].some((o) => o.endsWith(f)),
      )
      assert.equal(fresh.length, 2, files.join(' '))
      assert.ok(!files.includes(stale.split('/').pop()!), 'a 31-day-old dump is pruned')
      assert.ok(!files.includes(staleVault.split('/').pop()!))
      assert.ok(files.includes(recent.split('/').pop()!), 'a 29-day-old dump is kept')
      assert.ok(!files.some((f) => f.endsWith('.partial')))
      for (const [key, file] of [
        ['gov', fresh.find((f) => f.startsWith('gov-'))!],
        ['vault', fresh.find((f) => f.startsWith('vault-'))!],
      ] as const) {
        const { stdout } = await run('pg_restore', ['--list', join(dir, file)])
        assert.match(stdout, new RegExp(`TABLE public ${key}_marker`))
        const data = await run('pg_restore', ['--data-only', '--file=-', join(dir, file)])
        assert.match(data.stdout, /kept by the backup/)
      }
      assert.ok(!result.stdout.includes('postgres://'), 'URLs (passwords) are never printed')
    })

    it('keeps every old dump and exits 1 when a dump fails', async () => {
      const failDir = mkdtempSync(join(dir, 'fail-'))
      const stale = oldDump(failDir, 'gov', 60)
      const u = new URL(DATABASE_URL!)
      u.pathname = '/gov_backup_does_not_exist'
      const result = await backup({ GOV_BACKUP_DIR: failDir, GOV_BACKUP_DATABASE_URL: u.toString() })
      assert.equal(result.code, 1)
      assert.match(result.stdout, /FAIL gov: pg_dump failed/)
      assert.deepEqual(readdirSync(failDir), [stale.split('/').pop()])
    })

    it('--only dumps one target', async () => {
      const onlyDir = mkdtempSync(join(dir, 'only-'))
      const result = await backup(
        { GOV_BACKUP_DIR: onlyDir, GOV_BACKUP_DATABASE_URL: urls.gov, VAULT_BACKUP_DATABASE_URL: urls.vault },
        '--only',
        'vault',
      )
      assert.equal(result.code, 0)
      assert.deepEqual(
        readdirSync(onlyDir).map((f) => f.split('-')[0]),
        ['vault'],
      )
    })
  })
})
