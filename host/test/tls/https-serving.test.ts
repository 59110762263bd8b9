import assert from 'node:assert/strict'
import { copyFileSync } from 'node:fs'
import { request } from 'node:https'
import { after, before, describe, it } from 'node:test'
import type { TLSSocket } from 'node:tls'
import { makeTestCa, startTestGateway, type TestCa } from '../../src/testing/index.js'

/** GET over HTTPS trusting `ca`; the status and the serial of the certificate the server showed. */
function get(
  url: string,
  ca: string,
  client?: { cert: string; key: string },
): Promise<{ status: number; serial: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, ...client, agent: false }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        body += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, serial, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('HTTPS serving', () => {
  let ca: TestCa
  before(() => {
    ca = makeTestCa()
  })
  after(() => ca.close())

  it('serves HTTPS with the given certificate and follows a rotation without a restart', async () => {
    const first = ca.issue('gov-1')
    const second = ca.issue('gov-2')
    // The gateway reads these paths; a rotation rewrites them in place.
    const live = { cert: `${ca.dir}/live.crt`, key: `${ca.dir}/live.key` }
    copyFileSync(first.cert, live.cert)
    copyFileSync(first.key, live.key)
    const gw = await startTestGateway({
      env: { GOV_TLS_CERT_FILE: live.cert, GOV_TLS_KEY_FILE: live.key, GOV_TLS_RELOAD_MS: '100' },
    })
    try {
      assert.match(gw.url, /^https:\/\//)
      const caPem = ca.read(ca.caCert)
      const before = await get(`${gw.url}/health/live`, caPem)
      assert.equal(before.status, 200)
      assert.equal(before.serial, '01')

      copyFileSync(second.cert, live.cert)
      copyFileSync(second.key, live.key)
      // The poller picks the new pair up on its own; wait for it within a bound (no fixed sleep).
      const deadline = Date.now() + 5_000
      let serial = ''
      while (Date.now() < deadline && serial !== '02') {
        serial = (await get(`${gw.url}/health/live`, caPem)).serial
        if (serial !== '02') await new Promise((r) => setTimeout(r, 50))
      }
      assert.equal(serial, '02')
    } finally {
      await gw.close()
    }
  })

  it('requires a client certificate signed by GOV_TLS_CLIENT_CA_FILE when one is set', async () => {
    const server = ca.issue('gov-mtls')
    const client = ca.issue('agent-client', { clientAuth: true })
    const gw = await startTestGateway({
      env: {
        GOV_TLS_CERT_FILE: server.cert,
        GOV_TLS_KEY_FILE: server.key,
        GOV_TLS_CLIENT_CA_FILE: ca.caCert,
      },
    })
    try {
      const caPem = ca.read(ca.caCert)
      const ok = await get(`${gw.url}/health/live`, caPem, {
        cert: ca.read(client.cert),
        key: ca.read(client.key),
      })
      assert.equal(ok.status, 200)
      await assert.rejects(get(`${gw.url}/health/live`, caPem))
    } finally {
      await gw.close()
    }
  })

  it('refuses to start with a key that does not belong to the certificate', async () => {
    const a = ca.issue('gov-a')
    const b = ca.issue('gov-b')
    await assert.rejects(
      startTestGateway({ env: { GOV_TLS_CERT_FILE: a.cert, GOV_TLS_KEY_FILE: b.key } }),
      (err: { code?: string }) => err.code === 'GOV_ERR_TLS_FILE_INVALID',
    )
  })

  it('refuses half a TLS configuration', async () => {
    const a = ca.issue('gov-half')
    await assert.rejects(
      startTestGateway({ env: { GOV_TLS_CERT_FILE: a.cert } }),
      (err: { code?: string }) => err.code === 'GOV_ERR_TLS_CONFIG_INVALID',
    )
  })
})
