import assert from 'node:assert/strict'
import { copyFileSync, writeFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { SecureContextOptions } from 'node:tls'
import { pino } from 'pino'
import { makeTestCa, type TestCa } from '../../src/testing/index.js'
import { CertificateStore } from '../../src/tls/certificate-store.js'
import { readTlsSettings } from '../../src/tls/tls-settings.js'

const silent = pino({ level: 'silent' })

describe('CertificateStore', () => {
  let ca: TestCa
  before(() => {
    ca = makeTestCa()
  })
  after(() => ca.close())

  function live(name: string) {
    const issued = ca.issue(name)
    const paths = { cert: `${ca.dir}/${name}-live.crt`, key: `${ca.dir}/${name}-live.key` }
    copyFileSync(issued.cert, paths.cert)
    copyFileSync(issued.key, paths.key)
    return paths
  }

  it('installs a new pair once both files changed, and never a mismatched pair', async () => {
    const paths = live('rotate')
    const next = ca.issue('rotate-next')
    const settings = readTlsSettings({ GOV_TLS_CERT_FILE: paths.cert, GOV_TLS_KEY_FILE: paths.key })!
    const store = await CertificateStore.open(settings, silent)
    const installed: SecureContextOptions[] = []
    store.watch({ setSecureContext: (o) => installed.push(o) })
    try {
      assert.equal(await store.check(), false, 'unchanged files install nothing')
      copyFileSync(next.cert, paths.cert)
      assert.equal(await store.check(), false, 'new certificate with the old key is refused')
      assert.equal(installed.length, 0)
      copyFileSync(next.key, paths.key)
      assert.equal(await store.check(), true)
      assert.equal(installed.length, 1)
      assert.equal(String(installed[0]!.cert), ca.read(next.cert))
      assert.equal(store.reloads, 1)
      writeFileSync(paths.cert, 'not a certificate')
      assert.equal(await store.check(), false, 'garbage keeps the previous certificate')
      assert.equal(installed.length, 1)
    } finally {
      store.close()
    }
  })

  it('fails to open with coded errors', async () => {
    const paths = live('bad')
    await assert.rejects(
      CertificateStore.open(
        readTlsSettings({ GOV_TLS_CERT_FILE: `${ca.dir}/missing.crt`, GOV_TLS_KEY_FILE: paths.key })!,
        silent,
      ),
      (err: { code?: string }) => err.code === 'GOV_ERR_TLS_FILE_INVALID',
    )
    await assert.rejects(
      CertificateStore.open(
        readTlsSettings({ GOV_TLS_CERT_FILE: paths.key, GOV_TLS_KEY_FILE: paths.key })!,
        silent,
      ),
      (err: { code?: string }) => err.code === 'GOV_ERR_TLS_FILE_INVALID',
    )
  })

  it('reads the settings: plain HTTP when unset, coded errors when half set', () => {
    assert.equal(readTlsSettings({}), undefined)
    for (const env of [
      { GOV_TLS_KEY_FILE: '/k' },
      { GOV_TLS_CLIENT_CA_FILE: '/ca' },
      { GOV_TLS_CERT_FILE: '/c', GOV_TLS_KEY_FILE: '/k', GOV_TLS_RELOAD_MS: '5' },
    ]) {
      assert.throws(
        () => readTlsSettings(env),
        (err: { code?: string }) => err.code === 'GOV_ERR_TLS_CONFIG_INVALID',
      )
    }
    assert.equal(readTlsSettings({ GOV_TLS_CERT_FILE: '/c', GOV_TLS_KEY_FILE: '/k' })?.reloadMs, 60_000)
  })
})
