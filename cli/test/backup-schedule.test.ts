import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('../../../deploy/backup/run-daily.sh', import.meta.url))

describe('deploy/backup/run-daily.sh', () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gov-schedule-'))
    // A stand-in sleep records how long it was asked to wait; the stand-in backup ends the loop after one run.
    writeFileSync(join(dir, 'sleep'), `#!/bin/sh\necho "$1" >>"${dir}/slept"\n`)
    writeFileSync(join(dir, 'backup'), `#!/bin/sh\necho run >>"${dir}/runs"\nkill $PPID\n`)
    chmodSync(join(dir, 'sleep'), 0o755)
    chmodSync(join(dir, 'backup'), 0o755)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('sleeps until the next GOV_BACKUP_AT (UTC), then runs the backup', async () => {
    const now = new Date()
    // Two minutes ahead, so the next run is today (or just after midnight) and the wait is about 120 s.
    const at = new Date(now.getTime() + 120_000)
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`
    await run('sh', [SCRIPT], {
      env: { PATH: `${dir}:/usr/bin:/bin`, GOV_BACKUP_AT: hhmm, GOV_BACKUP_BIN: join(dir, 'backup') },
    }).catch(() => {})
    const slept = Number(readFileSync(join(dir, 'slept'), 'utf8').trim())
    const expected = Math.floor(at.getTime() / 60_000) * 60 - Math.floor(now.getTime() / 1000)
    assert.ok(Math.abs(slept - expected) <= 2, `slept ${slept} s, expected about ${expected} s`)
    assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\n')
  })

  it('refuses a time that is not HH:MM', async () => {
    await assert.rejects(
      run('sh', [SCRIPT], { env: { PATH: `${dir}:/usr/bin:/bin`, GOV_BACKUP_AT: '3am' } }),
      (err: { code?: number }) => err.code === 2,
    )
  })
})
