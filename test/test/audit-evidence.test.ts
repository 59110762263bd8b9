/**
 * Audit evidence end to end with the real `gov` binary: `gov audit export`
 * from a running gateway, then `gov audit verify --offline` on the file with
 * the gateway's JWKS (as a URL and as a file), intact and tampered with.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '@gov/host/testing'

const MAIN = fileURLToPath(new URL('../../../cli/dist/src/main.js', import.meta.url))

interface Run {
  code: number
  stdout: string
  stderr: string
}

function gov(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'reflect-metadata', MAIN, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

describe('gov audit export and verify --offline', () => {
  let gw: TestGateway
  let dir: string
  let env: NodeJS.ProcessEnv

  before(async () => {
    gw = await startTestGateway({ env: { GOV_AUDIT_CHECKPOINT_INTERVAL_S: '0' } })
    env = { GOV_URL: gw.url, GOV_ADMIN_API_KEY: TEST_ADMIN_KEY }
    dir = mkdtempSync(join(tmpdir(), 'gov-audit-cli-'))
    for (let i = 0; i < 4; i++) await gw.createPipeline(`evidence-${i}`, 'observe')
    assert.equal((await gw.admin('POST', '/audit/checkpoints')).status, 201)
    await gw.createPipeline('evidence-late', 'observe')
  })

  after(async () => {
    await gw?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('exports records and checkpoints, and verifies the file offline with the JWKS URL or file', async () => {
    const file = join(dir, 'audit.jsonl')
    const exported = await gov(env, 'audit', 'export', '--out', file)
    assert.equal(exported.code, 0, exported.stderr)
    assert.match(exported.stderr, /^exported 5 records and 1 checkpoints, last seq 5$/m)
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    assert.equal(lines.length, 6, 'five records and one checkpoint; the end line is not written')

    const byUrl = await gov(
      {},
      'audit',
      'verify',
      '--offline',
      file,
      '--jwks',
      `${gw.url}/.well-known/jwks.json`,
    )
    assert.equal(byUrl.code, 0, byUrl.stdout + byUrl.stderr)
    assert.match(byUrl.stdout, /^audit chain intact: 5 records checked; head seq 5 hash [0-9a-f]{64}$/m)
    assert.match(
      byUrl.stdout,
      /^checkpoints: 1 signed and matching the chain, newest at seq 4; 1 records after/m,
    )

    const jwksFile = join(dir, 'jwks.json')
    writeFileSync(jwksFile, JSON.stringify((await gw.admin('GET', '/.well-known/jwks.json')).body))
    const byFile = await gov({}, 'audit', 'verify', '--offline', file, '--jwks', jwksFile, '--json')
    assert.equal(byFile.code, 0)
    assert.equal(JSON.parse(byFile.stdout).checkpoints.verified, 1)

    // Record 2 edited in the file.
    const record = JSON.parse(lines[1]!) as { seq: number; status: number }
    assert.equal(record.seq, 2)
    lines[1] = JSON.stringify({ ...record, status: 500 })
    const tampered = join(dir, 'tampered.jsonl')
    writeFileSync(tampered, `${lines.join('\n')}\n`)
    const broken = await gov({}, 'audit', 'verify', '--offline', tampered, '--jwks', jwksFile)
    assert.equal(broken.code, 3)
    assert.match(broken.stdout, /^audit chain BROKEN at record seq 2 \(id [0-9a-f-]+\): hash_mismatch$/m)
    assert.match(broken.stdout, /^checkpoint at seq 4 FAILED: chain_broken/m)

    // Online verification still works and agrees.
    const online = await gov(env, 'audit', 'verify')
    assert.equal(online.code, 0, online.stderr)
    assert.match(online.stdout, /^audit chain intact: 5 records checked/m)
  })

  it('exports OCSF-shaped events', async () => {
    const file = join(dir, 'audit.ocsf.jsonl')
    const run = await gov(env, 'audit', 'export', '--format', 'ocsf', '--after', '3', '--out', file)
    assert.equal(run.code, 0, run.stderr)
    const events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { class_uid: number; activity_name: string; metadata: { sequence: number } },
      )
    assert.deepEqual(
      events.map((e) => [e.class_uid, e.activity_name, e.metadata.sequence]),
      [
        [6003, 'Create', 4],
        [6003, 'Create', 5],
      ],
    )
    assert.match(run.stderr, /^exported 2 records, last seq 5$/m)
  })

  it('says why it could not check: exit 1', async () => {
    const noJwks = await gov({}, 'audit', 'verify', '--offline', join(dir, 'audit.jsonl'))
    assert.equal(noJwks.code, 1)
    assert.match(noJwks.stderr, /--offline needs --jwks/)
    const missing = await gov(
      {},
      'audit',
      'verify',
      '--offline',
      join(dir, 'nope.jsonl'),
      '--jwks',
      join(dir, 'jwks.json'),
    )
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /^gov: audit_not_checked: /)
    const notJwks = join(dir, 'not-jwks.json')
    writeFileSync(notJwks, '{"kty":"OKP"}')
    const wrong = await gov({}, 'audit', 'verify', '--offline', join(dir, 'audit.jsonl'), '--jwks', notJwks)
    assert.equal(wrong.code, 1)
    assert.match(wrong.stderr, /is not a JWKS/)
  })
})
