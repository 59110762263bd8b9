import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('../../../deploy/vault/init.sh', import.meta.url))

/**
 * A stand-in `vault` CLI: a sealed-or-not, initialised-or-not server kept in
 * files; every call is recorded with the token it carried, kv values in kv/.
 */
const FAKE_VAULT = `#!/bin/sh
d="$FAKE_DIR"
echo "$* token=\${VAULT_TOKEN:-}" >>"$d/calls.log"
case "$1 $2" in
  "status "*) [ -f "$d/initialised" ] && [ -f "$d/unsealed" ] && exit 0; exit 2 ;;
  "operator init") touch "$d/initialised"; printf '{\\n  "unseal_keys_b64": [\\n    "unseal-1"\\n  ],\\n  "root_token": "root-1"\\n}\\n'; exit 0 ;;
  "operator unseal") [ "$3" = unseal-1 ] && touch "$d/unsealed" && exit 0; exit 2 ;;
  "secrets list") [ -f "$d/kv-enabled" ] && echo "secret/    kv"; exit 0 ;;
  "secrets enable") [ -f "$d/kv-enabled" ] && exit 2; touch "$d/kv-enabled"; exit 0 ;;
  "policy write") cat >"$d/policy.hcl"; exit 0 ;;
  "kv put") [ -n "\${FAKE_KV_FAIL:-}" ] && exit 2; name=\${4#gov/}; mkdir -p "$d/kv"; cat >"$d/kv/$name"; exit 0 ;;
  "token create") n=$(($(cat "$d/tokens" 2>/dev/null || echo 0) + 1)); echo $n >"$d/tokens"; echo "s.gov-token-$n"; exit 0 ;;
esac
echo "fake vault: unexpected $*" >&2
exit 99
`

describe('deploy/vault/init.sh', () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gov-vault-init-'))
    mkdirSync(join(dir, 'bin'))
    mkdirSync(join(dir, 'init'))
    mkdirSync(join(dir, 'token'))
    writeFileSync(join(dir, 'bin', 'vault'), FAKE_VAULT)
    chmodSync(join(dir, 'bin', 'vault'), 0o755)
    writeFileSync(
      join(dir, 'signing.key'),
      '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI…\n-----END PRIVATE KEY-----\n',
    )
    env = {
      PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
      FAKE_DIR: dir,
      VAULT_INIT_DIR: join(dir, 'init'),
      VAULT_GOV_TOKEN_DIR: join(dir, 'token'),
      VAULT_INIT_SIGNING_KEY: join(dir, 'signing.key'),
      GOV_ADMIN_API_KEY: 'admin-secret',
      POSTGRES_GOV_PASSWORD: 'pg-secret',
      REDIS_PASSWORD: 'redis-secret',
      OPENAI_API_KEY: 'sk-openai',
    }
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const init = async (extra: NodeJS.ProcessEnv = {}) => {
    try {
      const { stdout } = await run('sh', [SCRIPT], { env: { ...env, ...extra } })
      return { code: 0, out: stdout }
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string }
      return { code: e.code, out: e.stdout + e.stderr }
    }
  }
  const kv = (name: string) => readFileSync(join(dir, 'kv', name), 'utf8')
  const calls = () => readFileSync(join(dir, 'calls.log'), 'utf8')

  it('initialises, unseals and provisions once; later starts only unseal and issue a token', async () => {
    const first = await init()
    assert.equal(first.code, 0, first.out)
    assert.equal(kv('GOV_ADMIN_API_KEY'), 'admin-secret')
    assert.equal(
      kv('DATABASE_URL'),
      'postgres://gov:pg-secret@postgres:5432/gov?sslmode=verify-full&sslrootcert=/run/gov/tls/ca.crt',
    )
    assert.equal(kv('REDIS_URL'), 'rediss://:redis-secret@redis:6379')
    assert.match(kv('GOV_TOKEN_SIGNING_KEY'), /^-----BEGIN PRIVATE KEY-----/)
    assert.equal(kv('OPENAI_API_KEY'), 'sk-openai')
    assert.ok(!existsSync(join(dir, 'kv', 'ANTHROPIC_API_KEY')), 'an unset provider key is not written')
    assert.match(readFileSync(join(dir, 'policy.hcl'), 'utf8'), /"secret\/data\/gov\/\*" .*"read"/)
    assert.equal(readFileSync(join(dir, 'token', 'gov.token'), 'utf8').trim(), 's.gov-token-1')
    assert.equal(
      statSync(join(dir, 'init', 'init.json')).mode & 0o777,
      0o600,
      'unseal key and root token are private',
    )
    assert.match(calls(), /^token create -policy=gov -period=24h .* token=root-1$/m)
    assert.ok(!first.out.includes('secret'), 'values are never printed')

    // A restart: Vault comes back sealed.
    rmSync(join(dir, 'unsealed'))
    writeFileSync(join(dir, 'calls.log'), '')
    const again = await init()
    assert.equal(again.code, 0, again.out)
    assert.doesNotMatch(calls(), /operator init|kv put|secrets enable/)
    assert.match(calls(), /^operator unseal unseal-1 /m)
    assert.equal(readFileSync(join(dir, 'token', 'gov.token'), 'utf8').trim(), 's.gov-token-2')
  })

  it('provisions again after a run that died half-way', async () => {
    const broken = await init({ FAKE_KV_FAIL: '1' })
    assert.notEqual(broken.code, 0)
    assert.ok(!existsSync(join(dir, 'init', 'provisioned')))
    const fixed = await init()
    assert.equal(fixed.code, 0, fixed.out)
    assert.equal(kv('GOV_ADMIN_API_KEY'), 'admin-secret')
    assert.equal((calls().match(/^operator init/gm) ?? []).length, 1, 'initialised once')
  })

  it('refuses to start without the shared signing key', async () => {
    const result = await init({ VAULT_INIT_SIGNING_KEY: join(dir, 'missing.key') })
    assert.equal(result.code, 1)
    assert.match(result.out, /token-signing\.key is missing/)
  })
})
