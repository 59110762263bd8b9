import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { chatBody, startTestGateway, TEST_ADMIN_KEY, type TestGateway } from '@gov/host/testing'
import { runCli } from './helpers/run-cli.js'

/** A loopback port nothing listens on (fetch refuses low "bad ports" like 1 before connecting). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('admin commands against a real gateway', () => {
  let gw: TestGateway
  let dir: string
  const gov = (...args: string[]) => runCli([...args, '--url', gw.url], { GOV_ADMIN_API_KEY: TEST_ADMIN_KEY })
  before(async () => {
    gw = await startTestGateway()
    dir = mkdtempSync(join(tmpdir(), 'gov-cli-admin-'))
  })
  after(async () => {
    await gw.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('creates, lists, gets and assigns pipelines', async () => {
    const created = await gov(
      'pipelines',
      'create',
      'support',
      '--preset',
      'standard',
      '--set',
      'detect_injection.threshold=0.6',
      '--disable',
      'dedupe',
      '--json',
    )
    assert.equal(created.code, 0, created.stderr)
    const body = JSON.parse(created.stdout)
    assert.equal(body.overrides.detect_injection.threshold, 0.6, 'numbers keep their type')
    assert.equal(body.overrides.dedupe.disabled, true)

    const list = await gov('pipelines', 'list')
    assert.equal(list.code, 0)
    assert.match(list.stdout, /^PIPELINE\s+PRESET\s+VERSION\s+OVERRIDES$/m)
    assert.match(list.stdout, /^support\s+standard\s+1\s+2$/m)

    const got = await gov('pipelines', 'get', 'support')
    assert.equal(JSON.parse(got.stdout).pipeline_id, 'support')
    assert.ok(Array.isArray(JSON.parse(got.stdout).steps))

    await gw.createAgent('bot-a')
    const assigned = await gov('pipelines', 'assign', 'support', 'bot-a')
    assert.equal(assigned.code, 0, assigned.stderr)
    assert.equal((await gw.admin('GET', '/agents/bot-a')).body.pipeline_id, 'support')
  })

  it('imports a gov-pipeline.yaml, then replaces it', async () => {
    const file = join(dir, 'gov-pipeline.yaml')
    writeFileSync(file, 'pipeline:\n  pipeline_id: imported\n  preset: strict\n  overrides: {}\n')
    const first = await gov('pipelines', 'import', file)
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /^created pipeline imported/)
    const again = await gov('pipelines', 'import', file)
    assert.match(again.stdout, /^replaced pipeline imported .*version 2/)
    const missing = await gov('pipelines', 'import', join(dir, 'nope.yaml'))
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /^gov: GOV_ERR_CLI_FILE_UNREADABLE:/)
    writeFileSync(file, 'pipeline: [unclosed\n')
    const bad = await gov('pipelines', 'import', file)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^gov: invalid_yaml: .*\(HTTP 400\)$/m)
  })

  it('creates, lists, rotates and deletes agents; keys work and stop working', async () => {
    const created = await gov('agents', 'create', 'bot-b')
    assert.equal(created.code, 0, created.stderr)
    const key = /^api_key: (\S+)$/m.exec(created.stdout)?.[1]
    assert.ok(key)
    assert.equal((await gw.call('/v1/chat/completions', chatBody('hello'), { key })).status, 200)

    const list = await gov('agents', 'list')
    assert.match(list.stdout, /^bot-b\s+-\s+\S+…/m)

    const rotated = await gov('agents', 'rotate', 'bot-b')
    const newKey = /^api_key: (\S+)$/m.exec(rotated.stdout)?.[1]
    assert.ok(newKey && newKey !== key)
    assert.equal((await gw.call('/v1/chat/completions', chatBody('hello'), { key })).status, 401)
    assert.equal((await gw.call('/v1/chat/completions', chatBody('hello'), { key: newKey })).status, 200)

    assert.equal((await gov('agents', 'delete', 'bot-b')).code, 0)
    const gone = await gov('agents', 'delete', 'bot-b')
    assert.equal(gone.code, 1)
    assert.match(gone.stderr, /\(HTTP 404\)$/m)
  })

  it('verifies and exports the audit chain as JSON Lines, resumable with --after', async () => {
    const verified = await gov('audit', 'verify', '--json')
    assert.equal(verified.code, 0, verified.stderr)
    const result = JSON.parse(verified.stdout)
    assert.equal(result.valid, true)
    assert.ok(result.records > 0)

    const out = join(dir, 'audit.jsonl')
    const all = await gov('audit', 'export', '--out', out)
    assert.equal(all.code, 0, all.stderr)
    const records = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number })
    assert.equal(records.length, result.records)
    assert.deepEqual(
      records.map((r) => r.seq),
      records.map((_, i) => i + 1),
      'chain order, nothing skipped',
    )
    const tail = await gov('audit', 'export', '--after', String(records.length - 2))
    assert.deepEqual(
      tail.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { seq: number }).seq),
      [records.length - 1, records.length],
    )
    assert.match(tail.stderr, new RegExp(`exported 2 records, last seq ${records.length}`))
  })

  it('invalidates a secret and refuses a name that is not one', async () => {
    const ok = await gov('secrets', 'invalidate', 'OPENAI_API_KEY')
    assert.equal(ok.code, 0, ok.stderr)
    const bad = await gov('secrets', 'invalidate', 'GOV_PORT')
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^gov: not_a_secret: /)
  })

  it('gives clear errors: no key, wrong key, nothing listening, bad URL', async () => {
    const noKey = await runCli(['agents', 'list', '--url', gw.url], {})
    assert.equal(noKey.code, 1)
    assert.match(noKey.stderr, /^gov: GOV_ERR_CLI_NO_ADMIN_KEY: /)
    const wrongKey = await runCli(['agents', 'list', '--url', gw.url], { GOV_ADMIN_API_KEY: 'wrong' })
    assert.equal(wrongKey.code, 1)
    assert.match(wrongKey.stderr, /\(HTTP 401\)$/m)
    const closed = await closedPort()
    const down = await runCli(['agents', 'list', '--url', `http://127.0.0.1:${closed}`], {
      GOV_ADMIN_API_KEY: 'k',
    })
    assert.equal(down.code, 1)
    assert.match(
      down.stderr,
      /^gov: GOV_ERR_CLI_UNREACHABLE: cannot reach gov at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    )
    const badUrl = await runCli(['agents', 'list', '--url', 'ftp://x'], { GOV_ADMIN_API_KEY: 'k' })
    assert.match(badUrl.stderr, /^gov: GOV_ERR_CLI_URL_INVALID: /)
    const fromEnv = await runCli(['agents', 'list', '--json'], {
      GOV_ADMIN_API_KEY: TEST_ADMIN_KEY,
      GOV_URL: gw.url,
    })
    assert.equal(fromEnv.code, 0, 'GOV_URL is the default of --url')
    assert.ok(Array.isArray(JSON.parse(fromEnv.stdout).agents))
  })
})
