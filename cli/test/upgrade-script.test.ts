import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('../../../scripts/upgrade.sh', import.meta.url))

/**
 * Stand-ins for docker, cosign and the backup command: each records its call
 * in calls.log; docker keeps the version each replica runs and answers
 * `inspect` with a health status, unhealthy for the version named in
 * FAKE_BAD_VERSION (on FAKE_BAD_REPLICA only, when set).
 */
const FAKE_DOCKER = `#!/bin/sh
log="$FAKE_DIR/calls.log"
if [ "$1" = pull ]; then
  echo "pull $2" >>"$log"
  [ "$2" = "\${FAKE_PULL_FAIL:-}" ] && exit 1
  exit 0
fi
if [ "$1" = compose ]; then
  [ "$2" = version ] && exit 0
  shift 3
  case "$1" in
    up) svc=$(eval echo "\\$$#"); echo "up $svc $GOV_VERSION" >>"$log"; echo "$GOV_VERSION" >"$FAKE_DIR/$svc.version" ;;
    exec) echo "exec $*" >>"$log"; exit \${FAKE_BACKUP_EXIT:-0} ;;
    ps) echo "cid-$3" ;;
  esac
  exit 0
fi
if [ "$1" = inspect ]; then
  svc=\${4#cid-}
  version=$(cat "$FAKE_DIR/$svc.version" 2>/dev/null)
  if [ "$version" = "\${FAKE_BAD_VERSION:-}" ] && { [ -z "\${FAKE_BAD_REPLICA:-}" ] || [ "$FAKE_BAD_REPLICA" = "$svc" ]; }; then
    echo "\${FAKE_BAD_STATUS:-unhealthy}"
  else
    echo healthy
  fi
  exit 0
fi
echo "fake docker: unexpected $*" >&2
exit 99
`
const FAKE_COSIGN = `#!/bin/sh
echo "cosign $*" >>"$FAKE_DIR/calls.log"
exit \${FAKE_COSIGN_EXIT:-0}
`
const FAKE_BACKUP = `#!/bin/sh
echo "backup" >>"$FAKE_DIR/calls.log"
exit \${FAKE_BACKUP_EXIT:-0}
`

describe('scripts/upgrade.sh', () => {
  let dir: string
  let bin: string
  let cosignBin: string
  let state: string

  function script(path: string, text: string): void {
    writeFileSync(path, text)
    chmodSync(path, 0o755)
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gov-upgrade-'))
    bin = join(dir, 'bin')
    cosignBin = join(dir, 'cosign-bin')
    state = join(dir, 'state')
    mkdirSync(bin)
    mkdirSync(cosignBin)
    script(join(bin, 'docker'), FAKE_DOCKER)
    script(join(cosignBin, 'cosign'), FAKE_COSIGN)
    script(join(dir, 'backup'), FAKE_BACKUP)
    mkdirSync(state)
    writeFileSync(join(state, 'current'), '1.0.0\n')
    for (const r of ['gov-1', 'gov-2', 'gov-3']) writeFileSync(join(dir, `${r}.version`), '1.0.0\n')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  async function upgrade(args: string[], env: Record<string, string> = {}, withCosign = true) {
    const path = [bin, ...(withCosign ? [cosignBin] : []), '/usr/bin', '/bin'].join(':')
    try {
      const { stdout } = await run('sh', [SCRIPT, ...args], {
        env: {
          PATH: path,
          FAKE_DIR: dir,
          GOV_STATE_DIR: state,
          GOV_BACKUP_CMD: join(dir, 'backup'),
          // Never the repository's own .env.
          GOV_ENV_FILE: join(dir, '.env'),
          GOV_COSIGN_KEY: join(dir, 'cosign.pub'),
          GOV_IMAGE: 'registry.example/gov',
          GOV_UPGRADE_POLL_SECONDS: '0.1',
          ...env,
        },
      })
      return { code: 0, out: stdout }
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string }
      return { code: e.code, out: e.stdout + e.stderr }
    }
  }
  const calls = () => readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n')
  const versions = () =>
    ['gov-1', 'gov-2', 'gov-3'].map((r) => readFileSync(join(dir, `${r}.version`), 'utf8').trim())

  it('pulls, verifies, backs up, then restarts the replicas one at a time', async () => {
    writeFileSync(join(dir, 'cosign.pub'), 'key')
    writeFileSync(join(dir, '.env'), 'REDIS_PASSWORD=x\nGOV_VERSION=1.0.0\n')
    const result = await upgrade(['1.1.0'])
    assert.equal(result.code, 0, result.out)
    assert.deepEqual(calls(), [
      'pull registry.example/gov:1.1.0',
      `cosign verify --key ${join(dir, 'cosign.pub')} registry.example/gov:1.1.0`,
      'backup',
      'up gov-1 1.1.0',
      'up gov-2 1.1.0',
      'up gov-3 1.1.0',
    ])
    assert.deepEqual(versions(), ['1.1.0', '1.1.0', '1.1.0'])
    assert.equal(readFileSync(join(state, 'current'), 'utf8').trim(), '1.1.0')
    assert.equal(readFileSync(join(state, 'previous'), 'utf8').trim(), '1.0.0')
    assert.equal(readFileSync(join(dir, '.env'), 'utf8'), 'REDIS_PASSWORD=x\nGOV_VERSION=1.1.0\n')

    const back = await upgrade(['--rollback'])
    assert.equal(back.code, 0, back.out)
    assert.deepEqual(versions(), ['1.0.0', '1.0.0', '1.0.0'])
    assert.equal(readFileSync(join(state, 'current'), 'utf8').trim(), '1.0.0')
  })

  it('rolls back every moved replica when one fails its health check', async () => {
    const result = await upgrade(['1.2.0'], { FAKE_BAD_VERSION: '1.2.0', FAKE_BAD_REPLICA: 'gov-2' })
    assert.equal(result.code, 1)
    assert.match(result.out, /gov-2 did not become healthy on 1\.2\.0; rolled back to 1\.0\.0/)
    assert.deepEqual(calls().slice(-4), [
      'up gov-1 1.2.0',
      'up gov-2 1.2.0',
      'up gov-1 1.0.0',
      'up gov-2 1.0.0',
    ])
    assert.ok(!calls().includes('up gov-3 1.2.0'), 'the third replica is never touched')
    assert.deepEqual(versions(), ['1.0.0', '1.0.0', '1.0.0'])
    assert.equal(readFileSync(join(state, 'current'), 'utf8').trim(), '1.0.0')
  })

  it('rolls back when a replica stays unhealthy past the timeout', async () => {
    const result = await upgrade(['1.3.0'], {
      FAKE_BAD_VERSION: '1.3.0',
      FAKE_BAD_STATUS: 'starting',
      GOV_UPGRADE_HEALTH_TIMEOUT: '1',
    })
    assert.equal(result.code, 1)
    assert.match(result.out, /gov-1 not healthy after 1 s \(last: starting\)/)
    assert.deepEqual(versions(), ['1.0.0', '1.0.0', '1.0.0'])
  })

  it('refuses an image whose signature does not verify, unless --allow-unsigned', async () => {
    const refused = await upgrade(['1.4.0'], { FAKE_COSIGN_EXIT: '1' })
    assert.equal(refused.code, 1)
    assert.match(refused.out, /no valid signature .* refusing/)
    assert.ok(!calls().includes('backup'))
    assert.deepEqual(versions(), ['1.0.0', '1.0.0', '1.0.0'])
    // Without a key file cosign is asked for a keyless verification.
    assert.match(calls()[1]!, /^cosign verify --certificate-identity-regexp .* --certificate-oidc-issuer /)

    const allowed = await upgrade(['1.4.0', '--allow-unsigned'], { FAKE_COSIGN_EXIT: '1' })
    assert.equal(allowed.code, 0, allowed.out)
    assert.match(allowed.out, /WARNING: .* no valid signature/)
    assert.deepEqual(versions(), ['1.4.0', '1.4.0', '1.4.0'])
  })

  it('says so and goes on when cosign is not installed', async () => {
    const result = await upgrade(['1.5.0'], {}, false)
    assert.equal(result.code, 0, result.out)
    assert.match(result.out, /cosign is not installed/)
    assert.ok(!calls().some((c) => c.startsWith('cosign')))
  })

  it('changes nothing when the pull or the backup fails', async () => {
    const pull = await upgrade(['1.6.0'], { FAKE_PULL_FAIL: 'registry.example/gov:1.6.0' })
    assert.equal(pull.code, 1)
    assert.match(pull.out, /cannot pull/)
    const backup = await upgrade(['1.6.0'], { FAKE_BACKUP_EXIT: '1' })
    assert.equal(backup.code, 1)
    assert.match(backup.out, /backup failed; nothing was changed/)
    assert.ok(!calls().some((c) => c.startsWith('up ')))
  })

  it('refuses bad arguments with exit 2', async () => {
    assert.equal((await upgrade([])).code, 2)
    assert.equal((await upgrade(['1.0.0;rm -rf /'])).code, 2)
    assert.equal((await upgrade(['--bogus'])).code, 2)
    rmSync(join(state, 'current'))
    const nothing = await upgrade(['--rollback'])
    assert.equal(nothing.code, 1)
    assert.match(nothing.out, /nothing to roll back to/)
  })

  it('backs up through the running backup service by default', async () => {
    const result = await upgrade(['1.7.0'], { GOV_BACKUP_CMD: '' })
    assert.equal(result.code, 0, result.out)
    assert.ok(calls().includes('exec exec -T backup /usr/local/bin/gov-backup'), calls().join('\n'))
    const failed = await upgrade(['1.8.0'], { GOV_BACKUP_CMD: '', FAKE_BACKUP_EXIT: '1' })
    assert.equal(failed.code, 1)
    assert.deepEqual(versions(), ['1.7.0', '1.7.0', '1.7.0'])
  })
})
