import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { VaultErrorCodes } from '../../src/secrets/vault-errors.js'
import { FakeVault } from '../../src/testing/fake-vault.js'
import { makeSource, vaultEnv } from './vault-fixture.js'

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** An internal CA and a server certificate for 127.0.0.1 signed by it. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=gov test CA')
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1')
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n')
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'san.ext',
  )
  return {
    ca: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  }
}

describe('Vault over TLS with an internal CA (VAULT_CACERT)', {
  skip: !hasOpenssl() && 'openssl not installed',
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gov-vault-tls-'))
  let fake: FakeVault
  let ca: string

  before(async () => {
    const certs = makeCertificates(dir)
    ca = certs.ca
    fake = await FakeVault.start({ tls: { key: certs.key, cert: certs.cert } })
    fake.putSecret('TLS_API_KEY', 'over-tls')
  })
  after(async () => {
    await fake?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('trusts the Vault certificate signed by VAULT_CACERT', async () => {
    assert.match(fake.url, /^https:/)
    const { source } = makeSource(vaultEnv(fake, { VAULT_CACERT: ca }))
    assert.equal(await source.get('TLS_API_KEY'), 'over-tls')
  })

  it('refuses the certificate without the internal CA', async () => {
    const { source } = makeSource(vaultEnv(fake))
    await assert.rejects(source.get('TLS_API_KEY'), { code: VaultErrorCodes.UNAVAILABLE })
  })
})
